// swift-tools-version:6.0
import PackageDescription

// TypedDefaults' integrations with other libraries, kept in their own package so that the library itself
// depends on nothing: a user who adds TypedDefaults gets none of these dependencies.
let package = Package(
    name: "TypedDefaultsIntegrations",
    // swift-configuration's floor (its `Configuration 1.0` availability), above TypedDefaults' own.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "TypedDefaultsConfiguration", targets: ["TypedDefaultsConfiguration"])
    ],
    dependencies: [
        .package(name: "TypedDefaults", path: ".."),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
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
    ]
)
