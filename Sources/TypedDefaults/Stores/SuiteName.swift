import Foundation

/// The checks a suite name passes before Foundation turns it into a path.
///
/// Foundation on Linux uses the name as a raw path under the config directory: `a/b`, `../x` and absolute
/// paths escape it, a NUL truncates it, a name over 249 bytes fails every write, and the global domain's names
/// write a file that every program reads. TypedDefaults refuses all of these up front.
enum SuiteName {
    /// The longest name whose file, and the lock, backup and temporary files beside it, fit a file name
    /// (255 bytes on Linux).
    static let maximumByteCount = 200

    private static let globalDomainNames: Set<String> = [
        "nsglobaldomain", ".globalpreferences", "kcfpreferencesanyapplication", "kcfpreferencescurrentapplication",
    ]

    static func validate(_ name: String) throws(DefaultsError) {
        func refuse(_ reason: String) -> DefaultsError { .invalidSuiteName(name, reason: reason) }

        if name.isEmpty { throw refuse("a suite name cannot be empty") }
        if name == "." || name == ".." { throw refuse("\".\" and \"..\" name directories, not suites") }
        if name.contains("/") {
            throw refuse("it contains \"/\", which would put the file outside the config directory")
        }
        if let scalar = name.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            let code = "U+" + String(scalar.value, radix: 16, uppercase: true)
            throw refuse("it contains the control character \(code)")
        }
        if name.utf8.count > maximumByteCount {
            throw refuse(
                "it is \(name.utf8.count) bytes long; suite names allow \(maximumByteCount), so that the file and "
                    + "the lock and backup files beside it fit the file system's 255-byte names"
            )
        }
        if globalDomainNames.contains(name.lowercased()) {
            throw refuse("it names the global domain, which every program reads; use a suite of your own")
        }
    }

    /// The absolute, normalized path of a directory that holds suites.
    static func validatedPath(of directory: URL) throws(DefaultsError) -> String {
        func refuse(_ reason: String) -> DefaultsError { .invalidDirectory(directory.absoluteString, reason: reason) }

        guard directory.isFileURL else { throw refuse("it is not a file URL") }
        // `file:relative/path` would otherwise be resolved against whatever the working directory is.
        guard directory.path.hasPrefix("/") else { throw refuse("it is not an absolute path") }
        let path = directory.standardizedFileURL.path
        guard path.hasPrefix("/") else { throw refuse("it is not an absolute path") }
        if path.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw refuse("it contains a control character")
        }
        guard path.utf8.count + maximumByteCount < Int(PATH_MAX) else { throw refuse("the path is too long") }
        return path == "/" ? "" : path
    }
}
