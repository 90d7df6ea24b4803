// swift-tools-version: 6.1
import PackageDescription

// The DocC plugin only where the documentation is built: scripts/build-docs sets STOWAGE_DOCS=1,
// so a user's resolution (and the README's two commands) never fetch it.
let documentationPlugin: [Package.Dependency] = (Context.environment["STOWAGE_DOCS"] ?? "").isEmpty ? [] : [
    // `swift package generate-documentation` (the DocC catalog, Sources/Stowage/Stowage.docc).
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
]

/// The PostgreSQL store and everything it needs (postgres-nio, SwiftNIO, swift-nio-ssl,
/// swift-crypto) are built only with the `Postgres` trait: `.package(url: …, from: …,
/// traits: ["Postgres"])`, or `swift test --traits Postgres` here. Without it SwiftPM neither
/// fetches nor builds them, and asking for a PostgreSQL store throws
/// `StoreError.storeTypeUnavailable` saying how to turn the trait on.
let postgres = TargetDependencyCondition.when(traits: ["Postgres"])

/// `Stowage` and every module it re-exports with `@_exported import`: a target that imports
/// `Stowage` depends on each of them directly. SwiftPM reruns a target's compile only when the
/// `.swiftmodule` of a *direct* dependency changes, and `Stowage.swiftmodule` does not change when
/// `StoreCore` does, so a target that saw `StoreCore` only through `Stowage` kept its old layouts
/// after an incremental build: link errors, crashes, misread values (docs/architecture.md,
/// "Incremental builds"). The same rule holds for every import: each module a target imports, or
/// uses through a re-export (`StoreTestSupport` re-exports `StowageTestKit`), is in its dependencies.
let stowageAndItsExports: [Target.Dependency] = [
    "Stowage", "StoreCore", "StoreSync", "ModelFiles", "MemoryBackend", "SQLiteBackend", "XMLBackend", "BinaryBackend",
    .target(name: "PostgresBackend", condition: postgres),
]
/// The test support target, what it re-exports, and StoreCore, which every test imports.
let testSupport: [Target.Dependency] = ["StoreTestSupport", "StowageTestKit", "StoreCore"]

let package = Package(
    name: "Stowage",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Stowage", targets: ["Stowage"]),
        .library(name: "StoreCore", targets: ["StoreCore"]),
        .library(name: "MemoryBackend", targets: ["MemoryBackend"]),
        .library(name: "SQLiteBackend", targets: ["SQLiteBackend"]),
        .library(name: "XMLBackend", targets: ["XMLBackend"]),
        .library(name: "BinaryBackend", targets: ["BinaryBackend"]),
        .library(name: "PostgresBackend", targets: ["PostgresBackend"]),
        .library(name: "ModelFiles", targets: ["ModelFiles"]),
        .library(name: "StoreSync", targets: ["StoreSync"]),
        // The shared behavioural suite, for Stowage's stores and anyone's (docs/writing-a-store.md).
        .library(name: "StowageTestKit", targets: ["StowageTestKit"]),
        .executable(name: "stowage", targets: ["StowageCLI"]),
    ],
    traits: [
        .trait(name: "Postgres", description: "The PostgreSQL store (PostgresBackend, on postgres-nio and SwiftNIO): `.postgres`, `stowage … --store postgres`, postgres:// URLs."),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ] + documentationPlugin,
    targets: [
        // swift-log for what a model's checks accept with a warning (ModelWarningLog).
        .target(name: "StoreCore", dependencies: [.product(name: "Logging", package: "swift-log")]),
        .target(name: "MemoryBackend", dependencies: ["StoreCore"]),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // Shared by the SQL stores: the query tree as SQL, the model as tables, batch plans; one dialect per store.
        .target(name: "StoreSQL", dependencies: ["StoreCore"]),
        .target(
            name: "SQLiteBackend",
            dependencies: ["StoreCore", "StoreSQL", "CSQLite", "CZlib", .product(name: "Logging", package: "swift-log")]
        ),
        // The PostgreSQL store, on vapor/postgres-nio (docs/postgres.md). Its sources are wrapped in
        // `#if Postgres`: without the trait it is an empty module, and postgres-nio is not fetched.
        .target(
            name: "PostgresBackend",
            dependencies: ["StoreCore", "StoreSQL", .product(name: "PostgresNIO", package: "postgres-nio", condition: postgres), .product(name: "Logging", package: "swift-log")]
        ),
        .systemLibrary(
            name: "CXML",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        .target(name: "XMLBackend", dependencies: ["StoreCore", "CXML"]),
        .target(name: "BinaryBackend", dependencies: ["StoreCore"]),
        // Raw deflate, for the compiled model Core Data caches in its SQLite stores (Z_MODELCACHE).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // Model files: Xcode's (.xcdatamodeld / .xcdatamodel, read with libxml2) and compiled
        // ones (.momd / .mom, and a store's model cache).
        .target(name: "ModelFiles", dependencies: ["StoreCore", "CXML", "CZlib"]),
        // The sync engine between a local store and a server store (docs/sync.md): StoreCore only,
        // any store type on either side.
        .target(name: "StoreSync", dependencies: ["StoreCore"]),
        .target(name: "Stowage", dependencies: ["StoreCore", "StoreSync", "MemoryBackend", "SQLiteBackend", "XMLBackend", "BinaryBackend", .target(name: "PostgresBackend", condition: postgres), "ModelFiles"]),
        .executableTarget(
            name: "StowageCLI",
            dependencies: stowageAndItsExports + [.product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .target(name: "StowageTestKit", dependencies: ["StoreCore"]),
        // A fault-injecting SQLite VFS for the reliability tests (C, test-only).
        .target(name: "CFaultVFS", dependencies: ["CSQLite"], path: "Tests/CFaultVFS"),
        .target(name: "StoreTestSupport", dependencies: ["StoreCore", "StowageTestKit", "MemoryBackend", "SQLiteBackend", "XMLBackend", "BinaryBackend"], path: "Tests/StoreTestSupport"),
        .testTarget(name: "StoreCoreTests", dependencies: testSupport + ["MemoryBackend", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "MemoryBackendTests", dependencies: testSupport + ["MemoryBackend"]),
        .testTarget(name: "SQLiteBackendTests", dependencies: testSupport + ["SQLiteBackend", "StoreSQL", "CSQLite", "CFaultVFS"]),
        .testTarget(
            name: "PostgresBackendTests",
            dependencies: testSupport + ["PostgresBackend", "StoreSQL", .product(name: "PostgresNIO", package: "postgres-nio", condition: postgres)]
        ),
        // The shared SQL store logic against a recording driver, in each dialect: its SQL and statement order, no server.
        .testTarget(name: "StoreSQLTests", dependencies: ["StoreCore", "StoreSQL", "SQLiteBackend", .target(name: "PostgresBackend", condition: postgres)]),
        .testTarget(
            name: "StoreSyncTests",
            dependencies: testSupport + ["StoreSync", "SQLiteBackend", "XMLBackend", .target(name: "PostgresBackend", condition: postgres)]
        ),
        .testTarget(name: "BinaryBackendTests", dependencies: testSupport + ["BinaryBackend"]),
        .testTarget(name: "ModelFilesTests", dependencies: testSupport + ["ModelFiles", "SQLiteBackend"]),
        .testTarget(name: "XMLBackendTests", dependencies: testSupport + ["XMLBackend", "CXML"]),
        // The child process the crash-safety test kills while it saves.
        .executableTarget(name: "stowage-save-loop", dependencies: stowageAndItsExports + ["StoreTestSupport", "StowageTestKit"], path: "Tests/StoreSaveLoop"),
        .testTarget(name: "StowageTests", dependencies: stowageAndItsExports + ["StoreTestSupport", "StowageTestKit", "stowage-save-loop", "StowageCLI"]),
        // The examples of the README, docs/ and the DocC articles, compiled and run as a client
        // writes them (importing Stowage, and StowageTestKit where docs/writing-a-store.md does);
        // it also checks every example block is still here and every path a doc names exists.
        .testTarget(name: "DocumentationExamplesTests", dependencies: stowageAndItsExports + ["StowageTestKit"]),
    ],
    swiftLanguageModes: [.v6]
)
