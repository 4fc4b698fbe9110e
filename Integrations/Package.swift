// swift-tools-version:6.0
import PackageDescription

// TypedDefaults' integrations with other libraries, kept in their own package so that the library itself
// depends on nothing: a user who adds TypedDefaults gets none of these dependencies.
let package = Package(
    name: "TypedDefaultsIntegrations",
    // swift-configuration's floor (its `Configuration 1.0` availability), above TypedDefaults' own; the
    // PostgreSQL store's Mutex (Synchronization) needs the same.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "TypedDefaultsConfiguration", targets: ["TypedDefaultsConfiguration"]),
        .library(name: "TypedDefaultsPostgres", targets: ["TypedDefaultsPostgres"]),
    ],
    dependencies: [
        .package(name: "TypedDefaults", path: ".."),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
    ],
    targets: [
        // A swift-configuration provider over a TypedDefaults suite.
        .target(
            name: "TypedDefaultsConfiguration",
            dependencies: [
                .product(name: "TypedDefaults", package: "TypedDefaults"),
                .product(name: "Configuration", package: "swift-configuration"),
            ]
        ),
        // Writes to a suite from another process, for the tests of reads and watches across processes.
        .executableTarget(
            name: "TypedDefaultsConfigurationTestHelper",
            dependencies: [.product(name: "TypedDefaults", package: "TypedDefaults")]
        ),
        .testTarget(
            name: "TypedDefaultsConfigurationTests",
            dependencies: [
                "TypedDefaultsConfiguration",
                "TypedDefaultsConfigurationTestHelper",
                .product(name: "TypedDefaults", package: "TypedDefaults"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "ConfigurationTesting", package: "swift-configuration"),
            ]
        ),

        // A suite kept in PostgreSQL, shared live by every instance of a service.
        .target(
            name: "TypedDefaultsPostgres",
            dependencies: [
                .product(name: "TypedDefaults", package: "TypedDefaults"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        // Examples/FleetSettings' executable, built here too (its folder is a link) so that the tests drive it
        // as separate processes without a second build of postgres-nio.
        .executableTarget(
            name: "fleet-settings",
            dependencies: [
                "TypedDefaultsPostgres",
                .product(name: "TypedDefaults", package: "TypedDefaults"),
            ],
            path: "Sources/FleetSettings"
        ),
        // A process the tests end by a signal while a write waits in memory.
        .executableTarget(
            name: "postgres-store-helper",
            dependencies: [
                "TypedDefaultsPostgres",
                .product(name: "TypedDefaults", package: "TypedDefaults"),
            ],
            path: "Sources/PostgresStoreTestHelper"
        ),
        // Figures for Docs/SharedSettings.md, run by hand against a server of your own.
        .executableTarget(
            name: "PostgresBenchmarks",
            dependencies: [
                "TypedDefaultsPostgres",
                .product(name: "TypedDefaults", package: "TypedDefaults"),
            ]
        ),
        .testTarget(
            name: "TypedDefaultsPostgresTests",
            dependencies: [
                "TypedDefaultsPostgres",
                "fleet-settings",
                "postgres-store-helper",
                .product(name: "TypedDefaultsTesting", package: "TypedDefaults"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
    ]
)
