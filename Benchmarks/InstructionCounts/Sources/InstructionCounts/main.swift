// Runs one operation many times, for `valgrind --tool=callgrind` to count its instructions: a figure that,
// unlike wall-clock time, does not depend on what else the machine is doing.
//
//     cd Benchmarks/InstructionCounts && swift build -c release
//     valgrind --tool=callgrind --callgrind-out-file=/dev/null .build/release/InstructionCounts 100000 codable
//     valgrind --tool=callgrind --callgrind-out-file=/dev/null .build/release/InstructionCounts 0 codable
//
// The difference of the two totals, divided by 100,000, is the cost of one operation. Operations: int,
// string, codable, list, cached (a `.cached` `@Default`), setint, setstring, setproperty (a write through a
// `@Default`, which is announced to the key's tracker), setfanout (a write while 1,000 observers watch other
// keys).
#if os(Linux)
import Foundation
import TypedDefaults

struct Profile: Codable, Equatable, DefaultsSerializable {
    var name: String
    var age: Int
    var tags: [String]
}

extension DefaultsKeys {
    var count: Key<Int> { .init("count", default: 0) }
    var profile: Key<Profile?> { .init("profile") }
    var list: Key<[String]> { .init("list", default: []) }
    var name: Key<String> { .init("name", default: "") }
}

let arguments = CommandLine.arguments.dropFirst()
guard let count = arguments.first.flatMap({ Int($0) }), let operation = arguments.dropFirst().first else {
    print(
        "usage: InstructionCounts <repetitions> int|string|codable|list|cached|setint|setstring|setproperty|setfanout"
    )
    exit(2)
}

// A suite of its own in a temporary directory, never ~/.config.
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("counts-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let defaults = try DefaultsAdapter(
    suiteName: "counts",
    directory: directory,
    keyStore: DefaultsKeys(),
    launchArguments: .ignored
)
defaults.count = 42
defaults.profile = Profile(name: "Ann", age: 3, tags: ["a", "b"])
defaults.list = ["x", "y", "z"]
defaults.name = "hello"
try defaults.flush()
// A property of the key lives only for the operations that use it: while one lives, every write of the key
// is announced to it (for the Observation framework), which the plain writes do not pay.
func property() -> Default<Int> { Default(\.count, adapter: defaults, options: [.cached]) }
let strings = (0..<16).map { "written string value \($0)" }

var sum = 0
switch operation {
case "int": for _ in 0..<count { sum &+= defaults.count }
case "string": for _ in 0..<count { sum &+= defaults.name.utf8.count }
case "codable": for _ in 0..<count { sum &+= defaults.profile?.age ?? 0 }
case "list": for _ in 0..<count { sum &+= defaults.list.count }
case "cached":
    let cached = property()
    for _ in 0..<count { sum &+= cached.wrappedValue }
case "setint": for index in 0..<count { defaults.count = index }
case "setstring": for index in 0..<count { defaults.name = strings[index & 15] }
case "setfanout":
    // 1,000 observers of other keys: a write is announced to its own key's observers only.
    let tokens = (0..<1000).map { index in defaults.observe(Key<Int>("other\(index)", default: 0)) { _ in } }
    for index in 0..<count { defaults.count = index }
    for token in tokens { token.invalidate() }
case "setproperty":
    let cached = property()
    for index in 0..<count { cached.wrappedValue = index }
default:
    print("unknown operation \(operation)")
    exit(2)
}
print(operation, sum)
#else
// TypedDefaults' file store exists on Linux only: on Apple platforms suites live in Foundation's UserDefaults (Docs/Platforms.md).
print("InstructionCounts measures the Linux file store; nothing to count here.")
#endif
