// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Stowage",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Stowage", targets: ["Stowage"]),
        .library(name: "StoreCore", targets: ["StoreCore"]),
        .library(name: "MemoryBackend", targets: ["MemoryBackend"]),
        .executable(name: "stowage", targets: ["StowageCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .target(name: "StoreCore"),
        .target(name: "MemoryBackend", dependencies: ["StoreCore"]),
        .target(name: "Stowage", dependencies: ["StoreCore", "MemoryBackend"]),
        .executableTarget(
            name: "StowageCLI",
            dependencies: [
                "Stowage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(name: "StoreTestSupport", dependencies: ["StoreCore", "MemoryBackend"], path: "Tests/StoreTestSupport"),
        .testTarget(name: "StoreCoreTests", dependencies: ["StoreCore", "StoreTestSupport"]),
        .testTarget(name: "MemoryBackendTests", dependencies: ["MemoryBackend", "StoreTestSupport"]),
        .testTarget(name: "StowageTests", dependencies: ["Stowage", "StoreTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
