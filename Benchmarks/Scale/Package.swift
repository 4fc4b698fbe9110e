// swift-tools-version:6.0
import PackageDescription

// Whole-file operations at 10 to 100,000 keys, TypedDefaults beside raw Foundation in one run (issue 12). A package
// of its own: the benchmark plugin would run any executable of the benchmarks' package as one.
let package = Package(
    name: "Scale",
    platforms: [.macOS(.v14)],
    dependencies: [
        // Named, because a path dependency is otherwise named after the folder of the clone.
        .package(name: "TypedDefaults", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "Scale",
            dependencies: [.product(name: "TypedDefaults", package: "TypedDefaults")]
        )
    ]
)
