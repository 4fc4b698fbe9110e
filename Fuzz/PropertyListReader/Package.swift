// swift-tools-version:6.0
import PackageDescription

// A libFuzzer target over TypedDefaults' own XML property-list reader. The reader is `package` API, so this
// package compiles the library's sources itself (Sources/TypedDefaults is a link to them) instead of
// depending on the library. Build and run it with Fuzz/run.
let package = Package(
    name: "PropertyListReaderFuzz",
    targets: [
        .target(name: "TypedDefaults"),
        .executableTarget(name: "PropertyListReaderFuzz", dependencies: ["TypedDefaults"]),
    ]
)
