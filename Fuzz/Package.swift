// swift-tools-version: 6.0
// libFuzzer targets, kept out of the root package's default build (see docs/fuzzing.md).
// StoreCore (and XMLBackend, CXML, BinaryBackend, ModelFiles, CZlib, StoreSQL, SQLiteBackend, CSQLite) are compiled here from symlinks to ../Sources, so the harness does not
// depend on the root package's identity (its checkout directory name) and may use `package` API.
import PackageDescription

let package = Package(
    name: "StowageFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .target(name: "StoreCore"),
        // libFuzzer's driver, shared by the fuzzers.
        .target(name: "FuzzDriver"),
        .target(name: "PredicateFuzzTarget", dependencies: ["StoreCore"]),
        .executableTarget(name: "PredicateFuzzer", dependencies: ["PredicateFuzzTarget", "FuzzDriver"]),
        // The XML store reader: XMLBackend and CXML are symlinks too.
        .systemLibrary(name: "CXML", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .target(name: "XMLBackend", dependencies: ["StoreCore", "CXML"]),
        .target(name: "XMLFuzzTarget", dependencies: ["StoreCore", "XMLBackend"]),
        .executableTarget(name: "XMLFuzzer", dependencies: ["XMLFuzzTarget", "FuzzDriver"]),
        .target(name: "BinaryBackend", dependencies: ["StoreCore"]),
        .target(name: "BinaryStoreFuzzTarget", dependencies: ["StoreCore", "BinaryBackend"]),
        .executableTarget(name: "BinaryStoreFuzzer", dependencies: ["BinaryStoreFuzzTarget", "FuzzDriver"]),
        // NSKeyedArchiver archives (Core Data's default transformers).
        .target(name: "KeyedArchiveFuzzTarget", dependencies: ["StoreCore"]),
        .executableTarget(name: "KeyedArchiveFuzzer", dependencies: ["KeyedArchiveFuzzTarget", "FuzzDriver"]),
        // Compiled Core Data models (.mom) and the model cache of SQLite stores: ModelFiles and
        // CZlib are symlinks too.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "ModelFiles", dependencies: ["StoreCore", "CXML", "CZlib"]),
        // What a model fuzzer checks of a model it decoded (shared by the model-file fuzzers).
        .target(name: "ModelFuzzSupport", dependencies: ["StoreCore", "ModelFiles"]),
        .target(name: "CompiledModelFuzzTarget", dependencies: ["StoreCore", "ModelFiles", "ModelFuzzSupport"]),
        .executableTarget(name: "CompiledModelFuzzer", dependencies: ["CompiledModelFuzzTarget", "FuzzDriver"]),
        // Xcode model files (the `contents` XML of a .xcdatamodel).
        .target(name: "ModelContentsFuzzTarget", dependencies: ["StoreCore", "ModelFiles", "ModelFuzzSupport", "FuzzDriver"]),
        .executableTarget(name: "ModelContentsFuzzer", dependencies: ["ModelContentsFuzzTarget", "FuzzDriver"]),
        // `stowage inspect` on mutated Core Data SQLite stores: SQLiteBackend, StoreSQL and CSQLite
        // are symlinks too.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "StoreSQL", dependencies: ["StoreCore"]),
        .target(name: "SQLiteBackend", dependencies: ["StoreCore", "StoreSQL", "CSQLite", .product(name: "Logging", package: "swift-log")]),
        .target(name: "CoreDataStoreFuzzTarget", dependencies: ["StoreCore", "ModelFiles", "ModelFuzzSupport", "SQLiteBackend", "CSQLite", "FuzzDriver"]),
        .executableTarget(name: "CoreDataStoreFuzzer", dependencies: ["CoreDataStoreFuzzTarget", "FuzzDriver"]),
    ],
    swiftLanguageModes: [.v6]
)
