import Foundation
import TypedDefaults

/// The last values this machine saw of one suite on one server, in a file under the user's cache directory, so
/// that a process starting while the server is down reads them instead of the keys' defaults.
///
/// Only committed values are kept (never writes still waiting for the server), with the suite's version, so
/// that catching up after a reconnect fetches only what changed since.
struct LocalCopy: Sendable {
    /// The file, or `nil` when neither `XDG_CACHE_HOME` nor `HOME` names a directory (then nothing is kept).
    let url: URL?

    /// What a copy holds.
    struct Contents: Codable, Sendable {
        var version: Int64
        /// The id of the commit `version` came from (absent in copies saved before it was kept).
        var head: UUID?
        var values: [String: StoredJSON]
    }

    /// The copy for `suite` of `database` at `server`, in `directory` or else the XDG cache directory.
    init(server: String, database: String, suite: String, directory: URL?) {
        let environment = ProcessInfo.processInfo.environment
        let base: URL? =
            if let directory {
                directory
            } else if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
                URL(fileURLWithPath: cache, isDirectory: true).appendingPathComponent("TypedDefaultsPostgres")
            } else if let home = environment["HOME"], home.hasPrefix("/") {
                URL(fileURLWithPath: home, isDirectory: true)
                    .appendingPathComponent(".cache/TypedDefaultsPostgres", isDirectory: true)
            } else {
                nil
            }
        // The names are anything a user chose: a digest names the file, and a readable prefix helps a person.
        let identity = "\(server)\u{0}\(database)\u{0}\(suite)"
        let readable = suite.unicodeScalars.prefix(40)
            .map {
                ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0))
                    ? String($0) : "_"
            }
            .joined()
        url = base?.appendingPathComponent("\(readable)-\(Self.digest(identity)).json")
    }

    func load() -> Contents? {
        guard let url, let data = try? Data(contentsOf: url) else { return nil }
        return try? JSONDecoder().decode(Contents.self, from: data)
    }

    /// Replaces the copy atomically (a new file renamed into place), in a directory only this user can read.
    func save(_ contents: Contents) throws {
        guard let url else { return }
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(
            at: directory,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        // The directory is this user's only (0700), so the renamed file's default mode exposes nothing.
        try JSONEncoder().encode(contents).write(to: url, options: .atomic)
    }

    /// Two rounds of 64-bit FNV-1a over the UTF-8 bytes: stable across processes and platforms (unlike
    /// `Hasher`), and wide enough that two suites never share a file in practice.
    static func digest(_ text: String) -> String {
        var first: UInt64 = 0xcbf2_9ce4_8422_2325
        var second: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in text.utf8 {
            first = (first ^ UInt64(byte)) &* 0x100_0000_01b3
            second = (second ^ UInt64(byte ^ 0x5a)) &* 0x100_0000_01b3
        }
        return String(first, radix: 16) + String(second, radix: 16)
    }
}
