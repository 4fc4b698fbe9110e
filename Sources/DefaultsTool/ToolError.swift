import TypedDefaults

/// A failure the tool reports on one line of standard error, with its documented exit status.
struct ToolError: Error {
    /// The exit statuses, documented in `defaults help` and Docs/DefaultsTool.md.
    enum Status: Int32 {
        case notFound = 1
        case invalidValue = 2
        case invalidDomain = 3
        case fileProblem = 4
        case usage = 64
    }

    let status: Status
    let message: String

    static func usage(_ message: String) -> ToolError { ToolError(status: .usage, message: message) }

    /// The tool's reading of a library error.
    init(_ error: DefaultsError) {
        switch error {
        case .invalidSuiteName, .invalidDirectory:
            self.init(status: .invalidDomain, message: error.description)
        case .valueNotStorable:
            self.init(status: .invalidValue, message: error.description)
        case .writeFailed, .noConfigDirectory, .unsafeFile, .unreadableFile, .damagedFile:
            self.init(status: .fileProblem, message: error.description)
        }
    }

    init(status: Status, message: String) {
        self.status = status
        self.message = message
    }
}
