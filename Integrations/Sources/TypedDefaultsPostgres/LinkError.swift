import Foundation
import PostgresNIO

/// Why a conversation with the server failed.
///
/// It could not be reached, or another session kept the suite locked past the query timeout (both worth trying
/// again), or it refused what was asked (it would refuse again). The reason never holds the password.
enum LinkError: Error {
    case unreachable(String)
    case busy(String)
    case refused(String)

    var reason: String {
        switch self {
        case .unreachable(let reason), .busy(let reason), .refused(let reason): reason
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
                // 55P03: a lock wait passed `lock_timeout` (the query timeout): another session holds the suite's
                // row, and may let go. 57014: a statement passed `statement_timeout`; the server is there and
                // answered, and the same statement would only time out again, so the caller hears why at once.
                described =
                    state == "55P03"
                    ? .busy("another session held the suite's row lock past the query timeout: \(reason)")
                    : state != "57014" && Self.transientClasses.contains(state.prefix(2))
                        ? .unreachable(reason) : .refused(reason)
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
        case .busy(let reason): .busy(hidden(reason))
        case .refused(let reason): .refused(hidden(reason))
        }
    }
}
