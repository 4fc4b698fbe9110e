// swift-tools-version:6.0
import PackageDescription

// A libFuzzer target over TypedDefaults' own XML property-list reader. The reader is `package` API, so this
// package compiles the library's sources itself (Sources/TypedDefaults is a link to them) instead of
// depending on the library. Build and run it with Fuzz/run.
//
// macOS only among Apple platforms: libFuzzer runs where a command line does, with a swift.org toolchain (Xcode's
// has no libFuzzer). The library's floor and its Foundation-storage define are the root package's, so the sources
// compile here exactly as they do there.
let package = Package(
    name: "PropertyListReaderFuzz",
    platforms: [.macOS(.v14)],
    targets: [
        .target(
            name: "TypedDefaults",
            swiftSettings: [.define("TYPED_DEFAULTS_FOUNDATION_STORAGE", .when(platforms: [.macOS]))]
        ),
        .executableTarget(name: "PropertyListReaderFuzz", dependencies: ["TypedDefaults"]),
    ]
)
