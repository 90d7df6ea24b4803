import Foundation
import Stowage
import Synchronization

/// In-place migration of a million-row SQLite store, against what SQLite does alone for the same
/// change on a copy of the same file:
///
/// - `migration.sqlite-add-attribute-1m`: a new optional attribute, against one raw
///   `ALTER TABLE … ADD COLUMN`.
/// - `migration.sqlite-table-copy-1m`: a renamed attribute and an `Integer 64` → `Double`
///   change, against a raw rebuild in one transaction (`CREATE TABLE`, one `INSERT … SELECT`
///   with `CAST`, `DROP`, `RENAME`).
///
/// The store (v1: `Item` with `number`, `name`, `score`) is made once per process: an empty
/// Stowage store, filled by one raw `INSERT … SELECT` over a recursive CTE (untimed).
enum MigrationWorkloads {
    static let rowCount = 1_000_000

    static func workloads() -> [Workload] {
        [
            Workload(
                name: "migration.sqlite-add-attribute-1m", baselineName: "raw-alter-table",
                ours: { try migrate(to: addedAttribute()) },
                baseline: { try raw(["ALTER TABLE ZITEM ADD COLUMN ZNOTE VARCHAR"]) }),
            Workload(
                name: "migration.sqlite-table-copy-1m", baselineName: "raw-insert-select",
                ours: { try migrate(to: renamedAndConverted()) },
                baseline: {
                    try raw([
                        "BEGIN IMMEDIATE",
                        "CREATE TABLE Z_NEW_ZITEM ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNUMBER FLOAT, ZTITLE VARCHAR, ZSCORE FLOAT )",
                        "INSERT INTO Z_NEW_ZITEM (Z_PK, Z_ENT, Z_OPT, ZNUMBER, ZTITLE, ZSCORE) SELECT Z_PK, Z_ENT, Z_OPT, CAST(ZNUMBER AS REAL), ZNAME, ZSCORE FROM ZITEM",
                        "DROP TABLE ZITEM",
                        "ALTER TABLE Z_NEW_ZITEM RENAME TO ZITEM",
                        "COMMIT",
                    ])
                }),
        ]
    }

    static func original() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Item") {
                .attribute("number", .integer64)
                .attribute("name", .string)
                .attribute("score", .double)
            }
        }
    }

    static func addedAttribute() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Item") {
                .attribute("number", .integer64)
                .attribute("name", .string)
                .attribute("score", .double)
                .attribute("note", .string)
            }
        }
    }

    static func renamedAndConverted() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Item") {
                .attribute("number", .double)
                .attribute("title", .string, renamingIdentifier: "name")
                .attribute("score", .double)
            }
        }
    }

    /// The populated v1 store, made on first use.
    private static let store = Mutex<URL?>(nil)

    private static func populatedStore() throws -> URL {
        try store.withLock { cached in
            if let cached { return cached }
            let directory = try Scratch.makeDirectory("migration-source")
            let url = directory.appendingPathComponent("Items.sqlite")
            let container = PersistentContainer(name: "Items", managedObjectModel: try original())
            container.persistentStoreDescriptions = [PersistentStoreDescription(type: .sqlite, url: url)]
            try container.loadPersistentStores()
            for loaded in container.persistentStoreCoordinator.persistentStores { try container.persistentStoreCoordinator.removePersistentStore(loaded) }
            let database = try RawDatabase.openWAL(path: url.path)
            try database.execute("""
                BEGIN;
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rowCount))
                INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZNUMBER, ZNAME, ZSCORE) SELECT i, 1, 1, i * 7, 'item ' || i, i / 3.0 FROM n;
                UPDATE Z_PRIMARYKEY SET Z_MAX = \(rowCount) WHERE Z_NAME = 'Item';
                COMMIT;
                PRAGMA wal_checkpoint(TRUNCATE);
                """)
            cached = url
            return url
        }
    }

    /// Migrates a copy of the store to `destination` (the copy is untimed) and checks the result.
    private static func migrate(to destination: ManagedObjectModel) throws -> Duration {
        let source = try original()
        let copy = try Scratch.copyDatabase(try populatedStore(), "migration")
        defer { Scratch.remove(copy.directory) }
        let request = StoreMigrationRequest(
            url: copy.url, type: .sqlite, options: [:], sourceModel: source, destinationModel: destination,
            mapping: try MappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination))
        guard let migrator = PersistentStoreRegistry.migrator(for: .sqlite) else { throw BenchmarkError.failed("no SQLite migrator is registered") }
        let time = try measure { try migrator.migrateStore(request) }
        let database = try RawDatabase(path: copy.url.path)
        let count = try database.integer("SELECT COUNT(*) FROM ZITEM")
        guard count == rowCount else { throw BenchmarkError.wrongResultCount(found: Int(count), expected: rowCount) }
        return time
    }

    /// Runs `statements` on a copy of the store (the copy is untimed).
    private static func raw(_ statements: [String]) throws -> Duration {
        let copy = try Scratch.copyDatabase(try populatedStore(), "migration-raw")
        defer { Scratch.remove(copy.directory) }
        let database = try RawDatabase.openWAL(path: copy.url.path)
        let time = try measure { for sql in statements { try database.execute(sql) } }
        let count = try database.integer("SELECT COUNT(*) FROM ZITEM")
        guard count == rowCount else { throw BenchmarkError.wrongResultCount(found: Int(count), expected: rowCount) }
        return time
    }
}
