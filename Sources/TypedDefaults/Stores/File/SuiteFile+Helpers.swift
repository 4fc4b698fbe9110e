// The library's own file store is Linux's; on Apple platforms values live in UserDefaults (see Package.swift).
#if !TYPED_DEFAULTS_FOUNDATION_STORAGE
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif
import Foundation

// The C library's read(2) and write(2) under names that `SuiteFile`'s own `read` and `write` do not shadow.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

// The file-system calls under reading and writing: whole reads and writes, temporary copies, safe opening,
// and the errors they throw.
extension SuiteFile {
    func writeTemporaryCopy(of data: [UInt8], durably: Bool) throws(DefaultsError) -> String {
        let serial = Self.temporaryFileSerial.withLock { serial in
            serial += 1
            return serial
        }
        // The process ID lets a later writer tell a killed writer's leftovers from a live writer's file.
        let temporary = directory + "/." + fileName + ".tmp-\(getpid())-\(serial)"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw writeFailed("cannot create \(temporary)", errno) }
        do throws(DefaultsError) {
            try writeAll(data, to: descriptor, path: temporary)
            // fdatasync: the contents and the size, which is all a reader needs; not the timestamps.
            if durably, fdatasync(descriptor) != 0 { throw writeFailed("cannot sync \(temporary)", errno) }
            close(descriptor)
            return temporary
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
    }

    func writeAll(_ data: some ContiguousBytes, to descriptor: Int32, path: String) throws(DefaultsError) {
        let failure: Int32? = data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failure { throw writeFailed("cannot write \(path)", failure) }
    }

    /// The largest file TypedDefaults reads: far above any suite it writes (each value is at most
    /// ``PropertyListValue/maximumEncodedSize``), and far below what would exhaust memory (a sparse file can
    /// claim terabytes).
    static let maximumFileSize = 256 * 1024 * 1024

    func readAll(_ descriptor: Int32, sizeHint: Int, path: String) throws(DefaultsError) -> Data {
        guard sizeHint <= Self.maximumFileSize else { throw tooLarge(path) }
        var data = Data(capacity: max(sizeHint, 0))
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            guard data.count <= Self.maximumFileSize else { throw tooLarge(path) }
            let count = buffer.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return data }
            if count < 0 {
                if errno == EINTR { continue }
                throw unreadable(errno)
            }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    /// Creates the directory and any missing parents with mode 0700, as Foundation does.
    func createDirectory() throws(DefaultsError) {
        var info = stat()
        if stat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { return }
        var partial = ""
        for component in directory.split(separator: "/") {
            partial += "/" + component
            if mkdir(partial, 0o700) != 0, errno != EEXIST {
                throw writeFailed("cannot create the directory \(partial)", errno)
            }
        }
        guard stat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw .unsafeFile(path: directory, reason: "it is not a directory")
        }
    }

    func syncDirectory() {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    /// Opens `path` only if it is a regular file, never blocking (a FIFO or device at any path TypedDefaults
    /// touches must not hang it, nor be written to); `nil` when there is nothing at the path.
    ///
    /// Without `followingLinks`, a symbolic link is refused too.
    func openRegularFile(
        _ path: String,
        _ flags: Int32,
        followingLinks: Bool
    ) throws(DefaultsError) -> Int32? {
        var info = stat()
        let exists = (followingLinks ? stat(path, &info) : lstat(path, &info)) == 0
        // Looked at before opening, so that a device is never even opened.
        if exists, info.st_mode & S_IFMT != S_IFREG { try checkRegularFile(info, at: path) }
        let descriptor = open(
            path,
            flags | O_NONBLOCK | O_CLOEXEC | (followingLinks ? 0 : O_NOFOLLOW),
            0o600
        )
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return nil }
            if code == ELOOP || code == ENXIO {
                throw .unsafeFile(path: path, reason: "it is not a regular file (a link, a FIFO or a device)")
            }
            throw flags & (O_WRONLY | O_RDWR) != 0 ? writeFailed("cannot open \(path)", code) : unreadable(code)
        }
        // And after: the path may have changed in between.
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            try checkRegularFile(info, at: path)
            return nil
        }
        return descriptor
    }

    func checkRegularFile(_ info: stat, at path: String) throws(DefaultsError) {
        let kind: String
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: kind = "a directory"
        case S_IFIFO: kind = "a FIFO"
        case S_IFSOCK: kind = "a socket"
        case S_IFCHR, S_IFBLK: kind = "a device"
        case S_IFLNK: kind = "a symbolic link"
        default: kind = "not a regular file"
        }
        throw .unsafeFile(path: path, reason: "it is \(kind), not a property-list file")
    }

    private func tooLarge(_ path: String) -> DefaultsError {
        .unsafeFile(
            path: path,
            reason:
                "it is larger than \(Self.maximumFileSize / 1024 / 1024) MiB, far more than any suite TypedDefaults "
                + "writes; it is left as it is"
        )
    }

    func unreadable(_ code: Int32) -> DefaultsError {
        .unreadableFile(path: path, reason: String(cString: strerror(code)))
    }

    func writeFailed(_ what: String, _ code: Int32?) -> DefaultsError {
        .writeFailed(
            suite: path,
            key: nil,
            reason: what + (code.map { ": " + String(cString: strerror($0)) } ?? "")
        )
    }

    static func timestampForFileName() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        return String(
            format: "%04d%02d%02d-%02d%02d%02d",
            parts.tm_year + 1900,
            parts.tm_mon + 1,
            parts.tm_mday,
            parts.tm_hour,
            parts.tm_min,
            parts.tm_sec
        )
    }
}
#endif
