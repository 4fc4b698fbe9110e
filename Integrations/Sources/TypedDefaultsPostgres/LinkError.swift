import Foundation
import PostgresNIO

/// Why a conversation with the server failed.
///
/// It could not be reached (worth trying again), or it refused what was asked (it would refuse again). The
/// reason never holds the password.
enum LinkError: Error {
    case unreachable(String)
    case refused(String)

    var reason: String {
        switch self {
        case .unreachable(let reason), .refused(let reason): reason
        }
    }

    /// SQLSTATE classes that describe the connection or the server's state, not the request: connection
    /// exceptions, operator intervention (a shutdown or restart), insufficient resources, transaction rollbacks.
    private static let transientClasses: Set<Substring> = ["08", "57", "53", "40"]

    init(_ error: any Error, hiding password: String?) {
        let described: LinkError
        if let error = error as? LinkError {
            described = error
        } else if let error = error as? PSQLError {
            if error.code == .server {
                let state = error.serverInfo?[.sqlState] ?? "?"
                let message = error.serverInfo?[.message] ?? "no message"
                let reason = "\(message) (SQLSTATE \(state))"
                described =
                    Self.transientClasses.contains(state.prefix(2)) ? .unreachable(reason) : .refused(reason)
            } else if let underlying = error.underlying {
                described = .unreachable("\(error.code): \(underlying)")
            } else {
                described = .unreachable("\(error.code)")
            }
        } else {
            described = .unreachable("\(error)")
        }
        self = described.hiding(password)
    }

    /// The error with every occurrence of `password` replaced, in case a server or a system message quotes it.
    func hiding(_ password: String?) -> LinkError {
        guard let password, !password.isEmpty else { return self }
        let hidden = { (text: String) in
            text.replacing(password, with: "***")
                .replacing(
                    password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? password,
                    with: "***"
                )
        }
        return switch self {
        case .unreachable(let reason): .unreachable(hidden(reason))
        case .refused(let reason): .refused(hidden(reason))
        }
    }
}

/// What a commit tells the suite's other instances through `NOTIFY`: its version and, when it fits in a
/// notification (8,000 bytes), what it changed; otherwise they fetch the changes.
struct Notification: Codable, Sendable {
    let suite: String
    let version: Int64
    let changes: [String: StoredJSON?]?

    var text: String {
        // Strings, numbers and objects of them always encode.
        String(decoding: (try? JSONEncoder().encode(self)) ?? Data(), as: UTF8.self)
    }

    init(suite: String, version: Int64, changes: [String: StoredJSON?]?) {
        self.suite = suite
        self.version = version
        self.changes = changes
    }

    init?(_ payload: String) {
        guard let note = try? JSONDecoder().decode(Notification.self, from: Data(payload.utf8)) else { return nil }
        self = note
    }
}
