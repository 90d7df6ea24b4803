import Foundation
import ModelFiles
@testable import SQLiteBackend
import StoreCore
import StoreTestSupport
import XCTest

/// Stores Stowage creates are Core Data's twins. For every SQLite store Apple's Core Data wrote in
/// the fixtures whose model Stowage can read — an Xcode model beside it, or the store's own
/// `Z_MODELCACHE` — a store Stowage creates from that model has the same `Z_PRIMARYKEY` rows
/// (`Z_ENT`, `Z_NAME`, `Z_SUPER`), tables, columns with their declared types, indexes (name,
/// uniqueness, columns, collation, order), join tables, auto-vacuum mode, version hashes and
/// metadata keys and values, and a `Z_MODELCACHE` (its content is compared by
/// `CoreDataModelCacheTwinTests`). Each difference that remains is listed for its store as a
/// ``KnownDifference`` with the reason; the test fails on any other difference, and on a listed
/// one that is no longer there.
final class CoreDataTwinTests: XCTestCase {
    /// Where a fixture store's model comes from.
    enum ModelSource {
        /// A version of an Xcode model package under `models/` or beside the store.
        case package(String, version: String)
        /// The compiled model Core Data cached in the store (`Z_MODELCACHE`): models built in code.
        case modelCache
    }

    /// A known, explained difference between an Apple-written store and Stowage's twin of it.
    enum KnownDifference: Hashable, CustomStringConvertible {
        /// `NSStoreModelVersionChecksumKey` is recorded by Core Data from build 1333 on; this store
        /// was written by an older one, Stowage records it (with the value Core Data computes).
        case checksumWrittenOnlyByNewerCoreData
        /// `NSStoreModelVersionHashesDigest` is not recorded by Core Data build 637; Stowage
        /// records it (with the value newer Core Data computes).
        case digestWrittenOnlyByNewerCoreData
        /// `NSPersistenceFrameworkVersion` is the build of the Core Data that wrote the store;
        /// Stowage records `StoreMetadata.coreDataFrameworkVersion` (1338).
        case frameworkVersion(apple: Int64)
        /// The same columns in another order (Core Data's is by kind, then property name:
        /// `CoreDataColumnOrder`); no fixture store shows one any more.
        case columnOrder(table: String)

        var description: String {
            switch self {
            case .checksumWrittenOnlyByNewerCoreData: "NSStoreModelVersionChecksumKey only in Stowage's"
            case .digestWrittenOnlyByNewerCoreData: "NSStoreModelVersionHashesDigest only in Stowage's"
            case .frameworkVersion(let apple): "NSPersistenceFrameworkVersion \(apple) (Stowage: \(StoreMetadata.coreDataFrameworkVersion))"
            case .columnOrder(let table): "column order of \(table)"
            }
        }
    }

    struct Case {
        let store: String
        let model: ModelSource
        let known: Set<KnownDifference>
    }

    private static let bookmarks = "duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld"

    static let cases: [Case] = [
        Case(store: "bignerdranch__CoreDataStack/TestModel.sqlite", model: .package("bignerdranch__CoreDataStack/Sample.xcdatamodeld", version: "TestModel"),
             known: [.checksumWrittenOnlyByNewerCoreData, .digestWrittenOnlyByNewerCoreData, .frameworkVersion(apple: 637)]),
        Case(store: "duckduckgo__BrowserServicesKit/Bookmarks_V1.sqlite", model: .package(bookmarks, version: "BookmarksModel"),
             known: [.checksumWrittenOnlyByNewerCoreData, .frameworkVersion(apple: 1251)]),
        Case(store: "duckduckgo__BrowserServicesKit/Bookmarks_V2.sqlite", model: .package(bookmarks, version: "BookmarksModel 2"),
             known: [.checksumWrittenOnlyByNewerCoreData, .frameworkVersion(apple: 1251)]),
        Case(store: "duckduckgo__BrowserServicesKit/Bookmarks_V3.sqlite", model: .package(bookmarks, version: "BookmarksModel 3"),
             known: [.checksumWrittenOnlyByNewerCoreData, .frameworkVersion(apple: 1251)]),
        Case(store: "duckduckgo__BrowserServicesKit/Bookmarks_V4.sqlite", model: .package(bookmarks, version: "BookmarksModel 4"),
             known: [.frameworkVersion(apple: 1333)]),
        Case(store: "duckduckgo__BrowserServicesKit/Bookmarks_V5.sqlite", model: .package(bookmarks, version: "BookmarksModel 5"),
             known: [.checksumWrittenOnlyByNewerCoreData, .frameworkVersion(apple: 1251)]),
        Case(store: "duckduckgo__BrowserServicesKit/SyncMetadata_V3.sqlite",
             model: .package("duckduckgo__BrowserServicesKit/SyncMetadata.xcdatamodeld", version: "SyncMetadata 3"),
             known: []),
        Case(store: "kean__Pulse/logs-package.pulse/logs.sqlite", model: .modelCache,
             known: [.checksumWrittenOnlyByNewerCoreData, .frameworkVersion(apple: 1044)]),
        Case(store: "kean__Pulse/bigstore.pulse", model: .modelCache,
             known: [.checksumWrittenOnlyByNewerCoreData, .frameworkVersion(apple: 1244)]),
    ]

    /// Apple-written stores whose model Stowage cannot read: Xcode 3 models (`elements`, a binary
    /// plist format) and no `Z_MODELCACHE` (Core Data wrote none before iOS 10). Their numbering
    /// is still checked, from their `Z_PRIMARYKEY` alone (`EntityNumberingTests`).
    private static let storesWithoutAReadableModel: [(store: String, model: String)] = [
        ("fruitsamples__iPhoneCoreDataRecipes/Recipes.sqlite", "fruitsamples__iPhoneCoreDataRecipes/Recipes.xcdatamodel"),
        ("gilpa__iphone_sqlite_test/CoreDataBooks.sqlite", "gilpa__iphone_sqlite_test/CoreDataBooks.xcdatamodel"),
    ]

    func testEveryFixtureStoreWithAModelHasATwinMadeByStowage() throws {
        guard CoreDataFixtures.arePresent else { throw XCTSkip("the Core Data fixtures are not present beside the repository") }
        for testCase in Self.cases {
            let directory = try TemporaryDirectory()
            let apple = try XCTUnwrap(try CoreDataFixtures.copyOfStore(testCase.store, into: directory.url), testCase.store)
            let model = try Self.model(testCase.model, store: apple)
            let ours = directory.file("twin.sqlite")
            let container = try TestStack.sqliteContainer(model, at: ours)
            try container.persistentStoreCoordinator.persistentStores.forEach { try container.persistentStoreCoordinator.removePersistentStore($0) }

            let comparison = Self.compare(apple: try Layout(of: apple), ours: try Layout(of: ours))
            XCTAssertEqual(comparison.unexplained, [], "\(testCase.store): differences from the Apple-written store")
            XCTAssertEqual(comparison.known, testCase.known, "\(testCase.store): the known differences are exactly these")
        }
    }

    /// The stores without a model Stowage reads are the ones listed, for the reason given.
    func testTheStoresLeftOutHaveNoModelStowageCanRead() throws {
        guard CoreDataFixtures.arePresent else { throw XCTSkip("the Core Data fixtures are not present beside the repository") }
        for (store, modelPath) in Self.storesWithoutAReadableModel {
            let directory = try TemporaryDirectory()
            let copy = try XCTUnwrap(try CoreDataFixtures.copyOfStore(store, into: directory.url))
            XCTAssertNil(try SQLiteModelCache.compressedContent(ofStoreAt: copy), "\(store) has no model cache")
            let model = try XCTUnwrap(CoreDataFixtures.storeDirectoryFile(modelPath), modelPath)
            XCTAssertThrowsError(try ManagedObjectModel(contentsOf: model), "\(modelPath) is an Xcode 3 model, which Stowage does not read")
        }
    }

    static func model(_ source: ModelSource, store: URL) throws -> ManagedObjectModel {
        switch source {
        case .package(let path, let version):
            let package = try XCTUnwrap(CoreDataFixtures.model(path), path)
            return try XCTUnwrap(try ManagedObjectModelBundle(contentsOf: package).version(named: version), "\(path): \(version)").model
        case .modelCache:
            let cache = try XCTUnwrap(try SQLiteModelCache.compressedContent(ofStoreAt: store), "\(store.lastPathComponent) has a model cache")
            return try CoreDataModelCache.version(decoding: cache, storeURL: store).model
        }
    }

    // MARK: Comparing

    private static func compare(apple: Layout, ours: Layout) -> (unexplained: [String], known: Set<KnownDifference>) {
        var unexplained: [String] = []
        var known: Set<KnownDifference> = []
        func check(_ same: Bool, _ message: @autoclosure () -> String) { if !same { unexplained.append(message()) } }

        check(ours.primaryKeys == apple.primaryKeys, "Z_PRIMARYKEY: \(ours.primaryKeys) instead of \(apple.primaryKeys)")
        check(ours.autoVacuum == apple.autoVacuum, "auto_vacuum \(ours.autoVacuum) instead of \(apple.autoVacuum)")

        let appleTables = apple.tables
        check(Set(ours.tables.keys) == Set(appleTables.keys), "tables \(ours.tables.keys.sorted()) instead of \(appleTables.keys.sorted())")
        for (table, appleColumns) in appleTables {
            guard let ourColumns = ours.tables[table] else { continue }
            if ourColumns == appleColumns { continue }
            check(ourColumns.sorted() == appleColumns.sorted(), "\(table) has the columns \(ourColumns) instead of \(appleColumns)")
            if ourColumns.sorted() == appleColumns.sorted() { known.insert(.columnOrder(table: table)) }
        }
        for name in Set(apple.indexes.keys).union(ours.indexes.keys).sorted() where apple.indexes[name] != ours.indexes[name] {
            unexplained.append("index \(name): \(ours.indexes[name] ?? "missing") instead of \(apple.indexes[name] ?? "none")")
        }

        for key in Set(apple.metadata.keys).union(ours.metadata.keys).sorted() {
            let (a, o) = (apple.metadata[key], ours.metadata[key])
            switch key {
            case "NSStoreModelVersionChecksumKey" where a == nil && o != nil:
                known.insert(.checksumWrittenOnlyByNewerCoreData)
            case "NSStoreModelVersionHashesDigest" where a == nil && o != nil:
                known.insert(.digestWrittenOnlyByNewerCoreData)
            case "NSPersistenceFrameworkVersion":
                check(o == .integer(StoreMetadata.coreDataFrameworkVersion), "\(key) is \(String(describing: o))")
                if let version = a?.integerValue, version != StoreMetadata.coreDataFrameworkVersion { known.insert(.frameworkVersion(apple: version)) }
            default:
                check(a == o, "metadata \(key): \(o.map { "\($0)" } ?? "missing") instead of \(a.map { "\($0)" } ?? "none")")
            }
        }
        return (unexplained, known)
    }

    /// What is compared of a store: read from a SQLite file with plain SQL.
    private struct Layout {
        /// `Z_ENT Z_NAME Z_SUPER`, in `Z_ENT` order.
        var primaryKeys: [String] = []
        /// Table → its columns, `NAME TYPE`, in order.
        var tables: [String: [String]] = [:]
        /// Index → `UNIQUE? table(column COLLATE c ASC|DESC, …) [WHERE …]`.
        var indexes: [String: String] = [:]
        /// Every key of `Z_METADATA.Z_PLIST`.
        var metadata: [String: PropertyListValue] = [:]
        var autoVacuum: Int64 = -1

        init(of url: URL) throws {
            let connection = try SQLiteConnection(path: url.path, mode: .readOnly, log: .disabled)
            try connection.query("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT") { row in
                primaryKeys.append("\(row.int64(at: 0)) \(row.string(at: 1) ?? "?") \(row.int64(at: 2))")
            }
            if case .integer(let mode)? = try connection.scalar("PRAGMA auto_vacuum") { autoVacuum = mode }
            if case .blob(let plist)? = try connection.scalar("SELECT Z_PLIST FROM Z_METADATA"),
                case .dictionary(let entries) = try BinaryPropertyListReader().read(plist)
            {
                metadata = entries
            }
            var tableNames: [String] = []
            try connection.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'") { row in
                if let name = row.string(at: 0) { tableNames.append(name) }
            }
            for table in tableNames {
                var columns: [String] = []
                try connection.query("SELECT name, type FROM pragma_table_info(?) ORDER BY cid", [.text(table)]) { row in
                    columns.append("\(row.string(at: 0) ?? "?") \(row.string(at: 1) ?? "")")
                }
                tables[table] = columns
                var indexList: [(name: String, unique: Bool)] = []
                try connection.query("SELECT name, \"unique\" FROM pragma_index_list(?) WHERE origin = 'c'", [.text(table)]) { row in
                    if let name = row.string(at: 0) { indexList.append((name, row.int64(at: 1) == 1)) }
                }
                for index in indexList {
                    var keys: [String] = []
                    try connection.query("SELECT name, coll, \"desc\" FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno", [.text(index.name)]) { row in
                        keys.append("\(row.string(at: 0) ?? "?") COLLATE \(row.string(at: 1) ?? "?") \(row.int64(at: 2) == 1 ? "DESC" : "ASC")")
                    }
                    var definition = (index.unique ? "UNIQUE " : "") + "\(table)(\(keys.joined(separator: ", ")))"
                    if case .text(let sql)? = try connection.scalar("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", [.text(index.name)]),
                        let clause = sql.range(of: " WHERE ")
                    {
                        definition += sql[clause.lowerBound...]
                    }
                    indexes[index.name] = definition
                }
            }
        }
    }
}
