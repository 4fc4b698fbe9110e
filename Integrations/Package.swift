// swift-tools-version:6.0
import PackageDescription

// Stores and providers that need a dependency, kept out of the root package so that it depends on nothing.
let package = Package(
    name: "TypedDefaultsIntegrations",
    // Synchronization's Mutex sets the floor.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "TypedDefaultsPostgres", targets: ["TypedDefaultsPostgres"])
    ],
    dependencies: [
        // `name:` because a path dependency is otherwise known by its folder's name, wherever the repository was cloned.
        .package(name: "TypedDefaults", path: ".."),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
    ],
    targets: [
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
            ]
        ),
    ]
)
