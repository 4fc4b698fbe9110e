// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "FleetSettings",
    platforms: [.macOS(.v15)],
    products: [.executable(name: "fleet-settings", targets: ["FleetSettings"])],
    dependencies: [
        // The library and its integrations in this checkout. Your own package names releases instead:
        // .package(url: "https://github.com/typeddefaults/TypedDefaults.git", from: "0.1.0")
        .package(name: "TypedDefaults", path: "../.."),
        .package(path: "../../Integrations"),
    ],
    targets: [
        .executableTarget(
            name: "FleetSettings",
            dependencies: [
                .product(name: "TypedDefaults", package: "TypedDefaults"),
                .product(name: "TypedDefaultsPostgres", package: "Integrations"),
            ]
        )
    ]
)
