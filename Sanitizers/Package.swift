// swift-tools-version: 6.0
// The root package's tests that sanitizers run, without the PostgreSQL client and SwiftNIO, which
// keeps a sanitizer build short (docs/reliability.md, "Races" and "Memory errors"):
// ThreadSanitizerTests (the concurrency-heavy tests; `.ci/run` runs them under ThreadSanitizer)
// and the store and file readers' tests (run under AddressSanitizer). Sources and tests are
// symlinks into the root package, as in Fuzz/, so this package does not depend on the root
// package's identity.
import PackageDescription

let package = Package(
    name: "StowageSanitizers",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // Synchronization's Mutex is invisible to ThreadSanitizer (it waits on a futex), which then
        // reports correctly locked accesses as races: this build gives StoreCore a pthread-based
        // Mutex of the same shape instead (Sources/StoreCore/Concurrency/SanitizerVisibleMutex.swift).
        .target(name: "StoreCore", swiftSettings: [.define("STOWAGE_SANITIZER_LOCKS")]),
        .target(name: "MemoryBackend", dependencies: ["StoreCore"]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "StoreSQL", dependencies: ["StoreCore"], swiftSettings: [.define("STOWAGE_SANITIZER_LOCKS")]),
        .target(
            name: "SQLiteBackend", dependencies: ["StoreCore", "StoreSQL", "CSQLite", .product(name: "Logging", package: "swift-log")],
            swiftSettings: [.define("STOWAGE_SANITIZER_LOCKS")]
        ),
        .systemLibrary(name: "CXML", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .target(name: "XMLBackend", dependencies: ["StoreCore", "CXML"]),
        .target(name: "BinaryBackend", dependencies: ["StoreCore"]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "ModelFiles", dependencies: ["StoreCore", "CXML", "CZlib"]),
        .target(name: "CFaultVFS", dependencies: ["CSQLite"]),
        .target(name: "StowageTestKit", dependencies: ["StoreCore"]),
        .target(name: "StoreTestSupport", dependencies: ["StoreCore", "StowageTestKit", "MemoryBackend", "SQLiteBackend", "XMLBackend", "BinaryBackend"]),
        // Contexts saving and fetching from several queues, parent/child, model actors,
        // asynchronous fetches, the coordinator's caches and notifications, the SQLite connection
        // pool and pinned readers, and a remote-change watcher beside saving threads.
        .testTarget(name: "ThreadSanitizerTests", dependencies: ["StoreCore", "StoreSQL", "MemoryBackend", "SQLiteBackend", "StoreTestSupport", "StowageTestKit"]),
        // The readers of files from elsewhere: XML and binary stores, property lists and keyed
        // archives, Xcode and compiled model files, SQLite stores (the root package's test targets).
        .testTarget(name: "XMLBackendTests", dependencies: ["XMLBackend", "CXML", "StoreTestSupport"]),
        .testTarget(name: "BinaryBackendTests", dependencies: ["BinaryBackend", "StoreTestSupport"]),
        .testTarget(name: "PropertyListTests", dependencies: ["StoreCore", "StoreTestSupport"]),
        .testTarget(name: "ModelFilesTests", dependencies: ["ModelFiles", "StoreTestSupport", "SQLiteBackend"]),
        .testTarget(name: "SQLiteBackendTests", dependencies: ["SQLiteBackend", "StoreSQL", "StoreTestSupport", "CFaultVFS"]),
    ],
    swiftLanguageModes: [.v6]
)
