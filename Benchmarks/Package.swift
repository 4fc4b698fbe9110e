// swift-tools-version:6.1
import PackageDescription

// Benchmarks for TypedDefaults, kept in their own package so the library itself depends on nothing.
// Run from this directory with `swift package --disable-sandbox benchmark` (see README.md).
let package = Package(
    name: "TypedDefaultsBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "TypedDefaults", path: ".."),
        // Only the malloc interposer trait: the default "RuntimeInterposer" trait would pull in
        // ordo-one/swift-runtime-interposer on Linux + Swift 6.3, which is only needed for ARC metrics.
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "DefaultsBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "TypedDefaults", package: "TypedDefaults"),
            ],
            path: "Benchmarks/DefaultsBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ]
)
