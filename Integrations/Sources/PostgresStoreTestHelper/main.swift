// What the tests run as a separate process beside `fleet-settings`:
//
//     postgres-store-helper hold URL SUITE KEY VALUE
//         writes the Int VALUE with writes coalesced for a minute, prints "pending", and waits to be signalled:
//         the write is still in memory only when the signal comes.

import Foundation
import TypedDefaults
import TypedDefaultsPostgres

let arguments = CommandLine.arguments
guard arguments.count == 6, arguments[1] == "hold", let value = Int(arguments[5]) else {
    FileHandle.standardError.write(Data("usage: postgres-store-helper hold URL SUITE KEY VALUE\n".utf8))
    exit(64)
}
do {
    let store = try PostgresStore(url: arguments[2], suite: arguments[3])
    let defaults = DefaultsAdapter(
        store: store,
        keyStore: DefaultsKeys(),
        writePolicy: .coalesced(within: .seconds(60))
    )
    try defaults.set(value, for: Key<Int>(arguments[4], default: 0))
    FileHandle.standardOutput.write(Data("pending\n".utf8))
    withExtendedLifetime(defaults) { dispatchMain() }
} catch {
    FileHandle.standardError.write(Data("postgres-store-helper: \(error)\n".utf8))
    exit(1)
}
