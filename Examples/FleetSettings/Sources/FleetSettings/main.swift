// Settings shared by every instance of a service, kept in PostgreSQL.
//
//     fleet-settings --url postgres://USER@HOST:PORT/DATABASE --suite NAME set KEY VALUE
//     fleet-settings --url … --suite NAME get KEY
//     fleet-settings --url … --suite NAME increment KEY COUNT
//     fleet-settings --url … --suite NAME watch KEY
//
// `set` stores VALUE as an Int when it reads as one, else as a String, and exits once the server committed it.
// `get` prints the value, or "(none)"; with the server down, the last value this machine saw. `increment` runs
// `modify { $0 += 1 }` COUNT times on an Int key (default 0) and prints the last value. `watch` prints the value,
// then every new value, one a line, until SIGTERM or SIGINT.

import Foundation
import TypedDefaults
import TypedDefaultsPostgres

let usage = """
    usage: fleet-settings --url postgres://USER@HOST:PORT/DATABASE --suite NAME COMMAND
      set KEY VALUE        store VALUE (an Int when it reads as one, else a String)
      get KEY              print the value, or (none)
      increment KEY COUNT  add 1 to an Int key COUNT times, exactly, whoever else adds
      watch KEY            print the value, then every new value, until SIGTERM or SIGINT
    """

func fail(_ message: String, status: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("fleet-settings: \(message)\n".utf8))
    exit(status)
}

/// Writes a line to standard output at once (no buffer to flush): a reader of a pipe sees each as it comes.
func printLine(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

/// A stored value as a person typed it: an integer or a string as itself, anything else described.
func shown(_ value: PropertyListValue?) -> String {
    switch value {
    case nil: "(none)"
    case .integer(let number): String(number)
    case .string(let text): text
    case let other?: other.summary
    }
}

var url: String?
var suite: String?
var positional: [String] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--url": url = arguments.popFirst()
    case "--suite": suite = arguments.popFirst()
    case "-h", "--help":
        print(usage)
        exit(0)
    default: positional.append(argument)
    }
}
guard let url, let suite, let command = positional.first else { fail("missing arguments\n\(usage)", status: 64) }
let operands = Array(positional.dropFirst())

let store: PostgresStore
do {
    store = try PostgresStore(url: url, suite: suite)
} catch {
    fail("\(error)")
}
let settings = DefaultsAdapter(store: store, keyStore: DefaultsKeys())

switch (command, operands.count) {
case ("set", 2):
    do {
        if let number = Int(operands[1]) {
            try settings.set(number, for: Key<Int>(operands[0], default: 0))
        } else {
            try settings.set(operands[1], for: Key<String>(operands[0], default: ""))
        }
        try settings.flush()
    } catch {
        fail("\(error)")
    }

case ("get", 1):
    printLine(shown(settings[Key<PropertyListValue?>(operands[0])]))

case ("increment", 2):
    guard let count = Int(operands[1]), count >= 0 else { fail("COUNT must be a whole number", status: 64) }
    let key = Key<Int>(operands[0], default: 0)
    var last = settings[key]
    do {
        for _ in 0..<count { last = try settings.modify(key) { $0 += 1 } }
        try settings.flush()
    } catch {
        fail("\(error)")
    }
    printLine(String(last))

case ("watch", 1):
    let queue = DispatchQueue(label: "fleet-settings.watch")
    let observation = settings.observe(Key<PropertyListValue?>(operands[0]), options: [.initial], queue: queue) {
        printLine(shown($0.newValue))
    }
    // SIGTERM and SIGINT keep their default action: the process ends at once (TypedDefaults catches no signal,
    // and `watch` has no write to lose).
    withExtendedLifetime(observation) { dispatchMain() }

default:
    fail("unknown command or wrong number of operands\n\(usage)", status: 64)
}
