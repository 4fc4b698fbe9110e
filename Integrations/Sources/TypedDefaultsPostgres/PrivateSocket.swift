import Foundation
import NIOCore
import NIOPosix
import PostgresNIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The store's connections, on sockets that child processes do not inherit.
///
/// NIO opens sockets without close-on-exec, so a child the program starts with `posix_spawn`, `system`, `popen`
/// or `fork` and `exec` gets a copy of each (Foundation's `Process` closes them; those calls do not). While any
/// such child lives, a connection the store closes stays open at the server: a session the store gave up on
/// after a timeout keeps its transaction, and a lock it was waiting for is held, once granted, until the server's
/// idle timeout ends it. So the store opens and connects its sockets itself, close-on-exec from the start, and
/// hands them to NIO.
enum PrivateSocket {
    /// `configuration` on a socket of the store's own, connected within `patience`; a configuration that
    /// already names a channel is returned as it is.
    static func configuration(
        _ configuration: PostgresConnection.Configuration,
        on eventLoop: any EventLoop,
        patience: Duration
    ) throws(LinkError) -> PostgresConnection.Configuration {
        guard configuration.establishedChannel == nil else { return configuration }
        let descriptor =
            if let path = configuration.unixSocketPath {
                try descriptor(connectedToPath: path, within: patience)
            } else {
                try descriptor(
                    connectedToHost: configuration.host ?? "localhost",
                    port: configuration.port ?? 5432,
                    within: patience
                )
            }
        let channel: any Channel
        do {
            channel = try ClientBootstrap(group: eventLoop).withConnectedSocket(descriptor).wait()
        } catch {
            throw .unreachable("the connected socket could not be used: \(error)")
        }
        var connected = PostgresConnection.Configuration(
            establishedChannel: channel,
            tls: configuration.tls,
            username: configuration.username,
            password: configuration.password,
            database: configuration.database
        )
        connected.options = configuration.options
        // Over a channel, PostgresNIO takes the name it checks the server's certificate against from here only.
        if connected.options.tlsServerName == nil, let host = configuration.host, !isIPAddress(host) {
            connected.options.tlsServerName = host
        }
        return connected
    }

    private static func descriptor(connectedToHost host: String, port: Int, within patience: Duration) throws(LinkError)
        -> CInt
    {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamType
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &found)
        guard status == 0, let found else {
            throw .unreachable("\(host) does not resolve: \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(found) }
        var addresses: [addrinfo] = []
        var candidate: UnsafeMutablePointer<addrinfo>? = found
        while let address = candidate?.pointee {
            if address.ai_addr != nil { addresses.append(address) }
            candidate = address.ai_next
        }
        let deadline = ContinuousClock.now + patience
        var failure = LinkError.unreachable("\(host) has no address")
        for (index, address) in addresses.enumerated() {
            // Each address gets an equal share of the time left, so that one that never answers (an IPv6 route
            // to nowhere, say) leaves time for the next.
            let share = (deadline - .now) / (addresses.count - index)
            do throws(LinkError) {
                return try descriptor(
                    family: address.ai_family,
                    connectedTo: address.ai_addr,
                    length: address.ai_addrlen,
                    until: .now + share
                )
            } catch {
                failure = error
            }
        }
        throw failure
    }

    private static func descriptor(connectedToPath path: String, within patience: Duration) throws(LinkError) -> CInt {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else {
            throw .refused("the socket path \(path) is longer than \(capacity - 1) bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { field in field.copyBytes(from: bytes) }
        return try withUnsafePointer(to: &address) { pointer throws(LinkError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic throws(LinkError) in
                let length = socklen_t(MemoryLayout<sockaddr_un>.size)
                return try descriptor(family: AF_UNIX, connectedTo: generic, length: length, until: .now + patience)
            }
        }
    }

    /// A non-blocking, close-on-exec stream socket of `family`, connected to `address` by `deadline`.
    private static func descriptor(
        family: CInt,
        connectedTo address: UnsafePointer<sockaddr>,
        length: socklen_t,
        until deadline: ContinuousClock.Instant
    ) throws(LinkError) -> CInt {
        #if canImport(Darwin)
        // Darwin has no SOCK_CLOEXEC: the flag is set right after, and a fork in between would still copy it.
        let descriptor = socket(family, streamType, 0)
        if descriptor >= 0 {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        #else
        let descriptor = socket(family, streamType | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        #endif
        guard descriptor >= 0 else { throw .unreachable("no socket: \(String(cString: strerror(errno)))") }
        var failure: CInt = 0
        if connect(descriptor, address, length) != 0 {
            failure = errno
            if failure == EINPROGRESS || failure == EINTR {
                failure = waitUntilConnected(descriptor, deadline: deadline)
            }
        }
        guard failure == 0 else {
            close(descriptor)
            throw .unreachable(
                failure == ETIMEDOUT ? "no answer to the connection request" : String(cString: strerror(failure))
            )
        }
        return descriptor
    }

    /// Waits for a connect in progress; returns 0 or the error it ended with.
    private static func waitUntilConnected(_ descriptor: CInt, deadline: ContinuousClock.Instant) -> CInt {
        var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        while true {
            let remaining = deadline - .now
            guard remaining > .zero else { return ETIMEDOUT }
            let milliseconds = Int32(clamping: Int64(remaining.seconds * 1000) + 1)
            let ready = poll(&poller, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { return errno }
            if ready == 0 { continue }
            var failure: CInt = 0
            var size = socklen_t(MemoryLayout<CInt>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &size) == 0 else { return errno }
            return failure
        }
    }

    private static func isIPAddress(_ host: String) -> Bool {
        var scratch = in6_addr()
        return inet_pton(AF_INET, host, &scratch) == 1 || inet_pton(AF_INET6, host, &scratch) == 1
    }

    #if canImport(Glibc)
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    #else
    private static let streamType = SOCK_STREAM
    #endif
}
