// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "SettingsService",
    platforms: [.macOS(.v15)],
    products: [.executable(name: "settings-service", targets: ["SettingsService"])],
    dependencies: [
        // The library in this checkout. `name:` because a path dependency is otherwise known by its folder's
        // name, which is wherever the repository was cloned. Your own package names a release instead:
        // .package(url: "https://github.com/typeddefaults/TypedDefaults.git", from: "0.1.0")
        .package(name: "TypedDefaults", path: "../.."),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "SettingsService",
            dependencies: [
                .product(name: "TypedDefaults", package: "TypedDefaults"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        )
    ]
)
