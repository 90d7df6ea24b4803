// swift-tools-version: 6.0
// libFuzzer targets, kept out of the root package's default build (see docs/fuzzing.md).
// StoreCore (and XMLBackend, CXML, BinaryBackend, ModelFiles, CZlib) are compiled here from symlinks to ../Sources, so the harness does not
// depend on the root package's identity (its checkout directory name) and may use `package` API.
import PackageDescription

let package = Package(
    name: "StowageFuzz",
    platforms: [.macOS(.v15)],
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
        .target(name: "CompiledModelFuzzTarget", dependencies: ["StoreCore", "ModelFiles"]),
        .executableTarget(name: "CompiledModelFuzzer", dependencies: ["CompiledModelFuzzTarget", "FuzzDriver"]),
    ],
    swiftLanguageModes: [.v6]
)
