import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How many descriptors the process holds open (counting the one that lists them).
func openDescriptorCount() -> Int {
    #if os(Linux)
    let directory = "/proc/self/fd"
    #else
    let directory = "/dev/fd"
    #endif
    return (try? FileManager.default.contentsOfDirectory(atPath: directory).count) ?? -1
}

/// Whether the process holds an inotify descriptor, among its first 128; Linux's file watching uses one, and
/// other systems have none.
///
/// Usable with every descriptor taken: `readlink` needs none of its own.
func holdsInotifyDescriptor() -> Bool {
    #if os(Linux)
    return (0..<128)
        .contains { descriptor in
            var target = [CChar](repeating: 0, count: 64)
            let length = readlink("/proc/self/fd/\(descriptor)", &target, target.count)
            return length > 0
                && String(decoding: target.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    .contains("inotify")
        }
    #else
    return false
    #endif
}
