// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "TypedDefaults",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "TypedDefaults", targets: ["TypedDefaults"]),
        .library(name: "TypedDefaultsTesting", targets: ["TypedDefaultsTesting"]),
        .executable(name: "typed-defaults-demo", targets: ["TypedDefaultsDemo"]),
        .executable(name: "defaults", targets: ["DefaultsTool"]),
    ],
    targets: [
        .target(name: "TypedDefaults"),
        // The conformance kit and FaultyStore, for testing stores and the code that uses them.
        .target(name: "TypedDefaultsTesting", dependencies: ["TypedDefaults"]),
        .executableTarget(name: "TypedDefaultsDemo", dependencies: ["TypedDefaults"]),
        .executableTarget(name: "DefaultsTool", dependencies: ["TypedDefaults"]),

        // Test-only parts: the value catalogue shared by the tests and the helper process, and the
        // helper that tests run as a real child process (new-process round trips, launch arguments).
        .target(name: "TypedDefaultsTestSupport", dependencies: ["TypedDefaults"]),
        .executableTarget(
            name: "TypedDefaultsTestHelper",
            dependencies: ["TypedDefaults", "TypedDefaultsTestSupport"]
        ),
        .testTarget(
            name: "TypedDefaultsTests",
            dependencies: ["TypedDefaults", "TypedDefaultsTestSupport", "TypedDefaultsTestHelper", "DefaultsTool"]
        ),
        // Imports TypedDefaults without @testable: stores written outside the package, on the public API only.
        .testTarget(name: "StoreConformanceTests", dependencies: ["TypedDefaults", "TypedDefaultsTesting"]),
    ]
)
