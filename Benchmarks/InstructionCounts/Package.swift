// swift-tools-version:6.0
import PackageDescription

// Runs one operation of TypedDefaults many times, for valgrind's instruction counts (see its main.swift). A
// package of its own: the benchmark plugin would run any executable of the benchmarks' package as one.
let package = Package(
    name: "InstructionCounts",
    platforms: [.macOS(.v14)],
    dependencies: [
        // Named, because a path dependency is otherwise named after the folder of the clone.
        .package(name: "TypedDefaults", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "InstructionCounts",
            dependencies: [.product(name: "TypedDefaults", package: "TypedDefaults")]
        )
    ]
)
