import Foundation
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
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
            // NIO owns the descriptor from here, and closes it when it fails to take it on.
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
        let deadline = ContinuousClock.now + patience
        let addresses = try addresses(of: host, port: port, until: deadline)
        var failures: [String] = []
        for (index, address) in addresses.enumerated() {
            // An equal share of the time left, and at least the first 250 ms of it (when NIO's Happy Eyeballs
            // starts its next attempt): an address that never answers leaves time for the next, and a slow but
            // working first one is not cut short.
            let left = deadline - .now
            let share = max(left / (addresses.count - index), min(left, .milliseconds(250)))
            let attempt = address.bytes.withUnsafeBytes { raw in
                Result { () throws(LinkError) in
                    try descriptor(
                        family: address.family,
                        connectedTo: raw.baseAddress!.assumingMemoryBound(to: sockaddr.self),
                        length: socklen_t(raw.count),
                        until: .now + share
                    )
                }
            }
            switch attempt {
            case .success(let descriptor): return descriptor
            case .failure(let error): failures.append("\(address.shown): \(error.reason)")
            }
        }
        throw .unreachable(failures.isEmpty ? "\(host) has no address" : failures.joined(separator: "; "))
    }

    /// One address a host name resolved to, copied out of `getaddrinfo`'s list.
    private struct Address: Sendable {
        let family: CInt
        let bytes: [UInt8]
        let shown: String
    }

    /// The addresses of `host`, looked up by `deadline`.
    ///
    /// `getaddrinfo` has no timeout of its own (a resolver that does not answer holds it for 5 s per try and per
    /// server), so a name is looked up on a thread of its own and the caller waits only until the deadline; an
    /// answer that comes later is dropped. An address written as one needs no lookup.
    private static func addresses(of host: String, port: Int, until deadline: ContinuousClock.Instant)
        throws(LinkError) -> [Address]
    {
        if isIPAddress(host) { return try resolve(host, port: port).get() }
        let answer = Mutex<Result<[Address], LinkError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let result = resolve(host, port: port)
            answer.withLock { $0 = result }
            done.signal()
        }
        let wait = max(deadline - .now, .zero)
        guard done.wait(timeout: .now() + wait.seconds) == .success,
            let result = answer.withLock({ $0 })
        else {
            throw .unreachable("\(host) did not resolve within \(wait)")
        }
        return try result.get()
    }

    private static func resolve(_ host: String, port: Int) -> Result<[Address], LinkError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamType
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &found)
        guard status == 0, let found else {
            let detail = status == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(status))
            return .failure(.unreachable("\(host) does not resolve: \(detail)"))
        }
        defer { freeaddrinfo(found) }
        var addresses: [Address] = []
        var candidate: UnsafeMutablePointer<addrinfo>? = found
        while let entry = candidate?.pointee {
            candidate = entry.ai_next
            guard let address = entry.ai_addr else { continue }
            var text = [CChar](repeating: 0, count: 64)
            let shown =
                getnameinfo(address, entry.ai_addrlen, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0
                ? String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : host
            let bytes = Array(UnsafeRawBufferPointer(start: address, count: Int(entry.ai_addrlen)))
            addresses.append(Address(family: entry.ai_family, bytes: bytes, shown: shown))
        }
        return .success(addresses)
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
        let descriptor = try privateSocket(family)
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

    /// A new non-blocking, close-on-exec stream socket of `family`.
    private static func privateSocket(_ family: CInt) throws(LinkError) -> CInt {
        #if canImport(Darwin)
        // Darwin has no SOCK_CLOEXEC: the flag is set right after, and a fork in that instant would still copy
        // the socket.
        let descriptor = socket(family, streamType, 0)
        guard descriptor >= 0 else { throw .unreachable("no socket: \(String(cString: strerror(errno)))") }
        let flags = fcntl(descriptor, F_GETFL)
        guard fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0, flags >= 0,
            fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0
        else {
            let code = errno
            close(descriptor)
            throw .unreachable("the socket could not be made close-on-exec: \(String(cString: strerror(code)))")
        }
        return descriptor
        #else
        let descriptor = socket(family, streamType | privateFlags, 0)
        guard descriptor >= 0 else { throw .unreachable("no socket: \(String(cString: strerror(errno)))") }
        return descriptor
        #endif
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
    private static let privateFlags = Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
    #elseif canImport(Musl)
    private static let streamType = SOCK_STREAM
    private static let privateFlags = SOCK_CLOEXEC | SOCK_NONBLOCK
    #else
    private static let streamType = SOCK_STREAM
    #endif
}
