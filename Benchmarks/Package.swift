// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "StowageBenchmarks",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "stowage-bench", targets: ["StowageBench"]),
    ],
    dependencies: [
        // With the `Postgres` trait: the `postgres.*` workloads time the PostgreSQL store.
        .package(name: "Stowage", path: "..", traits: ["Postgres"]),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        // The raw PostgreSQL baseline: the client library the PostgreSQL store is built on.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .executableTarget(
            name: "StowageBench",
            dependencies: [
                .product(name: "Stowage", package: "Stowage"),
                // For the SQLite store's options (`setSQLitePragma`).
                .product(name: "SQLiteBackend", package: "Stowage"),
                // The binary store's file format, timed on its own (`BinaryStoreFormat`).
                .product(name: "BinaryBackend", package: "Stowage"),
                .product(name: "GRDB", package: "GRDB.swift"),
                // The raw SQLite C API baseline: the system sqlite3 module GRDB itself links.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                // The XML store's format, timed on its own (`xml.save-100k`, `xml.load-100k`).
                .product(name: "XMLBackend", package: "Stowage"),
                // The PostgreSQL store's options, and postgres-nio for its raw baseline.
                .product(name: "PostgresBackend", package: "Stowage"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                "BenchLibXML2",
            ]
        ),
        // The `libxml2-reader` baseline: libxml2's streaming reader with no work per node.
        .systemLibrary(name: "BenchLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
    ],
    swiftLanguageModes: [.v6]
)
