// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "SettingsTool",
    platforms: [.macOS(.v14)],
    products: [.executable(name: "settings-tool", targets: ["SettingsTool"])],
    dependencies: [
        // The library in this checkout. `name:` because a path dependency is otherwise known by its folder's
        // name, which is wherever the repository was cloned. Your own package names a release instead:
        // .package(url: "https://github.com/typeddefaults/TypedDefaults.git", from: "0.1.0")
        .package(name: "TypedDefaults", path: "../.."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .executableTarget(
            name: "SettingsTool",
            dependencies: [
                .product(name: "TypedDefaults", package: "TypedDefaults"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        )
    ]
)
