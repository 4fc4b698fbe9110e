// swift-tools-version:6.0
import PackageDescription

// On Apple platforms values live in Foundation's `UserDefaults` (cfprefsd), which `@AppStorage`, Settings
// bundles, app-group extensions and `defaults read` share; the library's own file store is Linux-only.
// Building on Linux with `-Xswiftc -DTYPED_DEFAULTS_FOUNDATION_STORAGE` takes the Apple path, so it is tested here.
// Mac Catalyst is named on its own: an `.iOS` condition does not cover it.
let foundationStorageOnApplePlatforms: [SwiftSetting] = [
    .define(
        "TYPED_DEFAULTS_FOUNDATION_STORAGE",
        .when(platforms: [.macOS, .macCatalyst, .iOS, .tvOS, .watchOS, .visionOS])
    )
]

let package = Package(
    name: "TypedDefaults",
    // The Observation module (SwiftUI's view updates, `withObservationTracking`) sets the floor.
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "TypedDefaults", targets: ["TypedDefaults"]),
        .library(name: "TypedDefaultsTesting", targets: ["TypedDefaultsTesting"]),
        .executable(name: "typed-defaults-demo", targets: ["TypedDefaultsDemo"]),
        .executable(name: "defaults", targets: ["DefaultsTool"]),
    ],
    targets: [
        .target(name: "TypedDefaults", swiftSettings: foundationStorageOnApplePlatforms),
        // The conformance kit and FaultyStore, for testing stores and the code that uses them.
        .target(
            name: "TypedDefaultsTesting",
            dependencies: ["TypedDefaults"],
            swiftSettings: foundationStorageOnApplePlatforms
        ),
        .executableTarget(
            name: "TypedDefaultsDemo",
            dependencies: ["TypedDefaults"],
            swiftSettings: foundationStorageOnApplePlatforms
        ),
        .executableTarget(
            name: "DefaultsTool",
            dependencies: ["TypedDefaults"],
            swiftSettings: foundationStorageOnApplePlatforms
        ),

        // Test-only parts: the value catalogue shared by the tests and the helper process, and the
        // helper that tests run as a real child process (new-process round trips, launch arguments).
        .target(
            name: "TypedDefaultsTestSupport",
            dependencies: ["TypedDefaults"],
            swiftSettings: foundationStorageOnApplePlatforms
        ),
        .executableTarget(
            name: "TypedDefaultsTestHelper",
            dependencies: ["TypedDefaults", "TypedDefaultsTestSupport"],
            swiftSettings: foundationStorageOnApplePlatforms
        ),
        .testTarget(
            name: "TypedDefaultsTests",
            dependencies: [
                "TypedDefaults", "TypedDefaultsTestSupport", "TypedDefaultsTestHelper", "DefaultsTool",
                "TypedDefaultsDemo",
            ],
            swiftSettings: foundationStorageOnApplePlatforms
        ),
        // The documented examples of SwiftyUserDefaults and sindresorhus/Defaults, in TypedDefaults' spelling.
        // A module of its own: it declares its own global `Defaults`, as SwiftyUserDefaults users do.
        .testTarget(
            name: "PeerScenarios",
            dependencies: ["TypedDefaults", "TypedDefaultsTestSupport", "TypedDefaultsTestHelper"],
            swiftSettings: foundationStorageOnApplePlatforms
        ),
        // Imports TypedDefaults without @testable: stores written outside the package, on the public API only.
        .testTarget(
            name: "StoreConformanceTests",
            dependencies: ["TypedDefaults", "TypedDefaultsTesting"],
            swiftSettings: foundationStorageOnApplePlatforms
        ),
    ]
)
