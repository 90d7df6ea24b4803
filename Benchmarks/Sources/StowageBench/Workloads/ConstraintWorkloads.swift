import Foundation
import GRDBSQLite
import Stowage

/// The import-and-dedupe pattern on SQLite: a context saves 100,000 new objects of an entity
/// unique by `code`, half of which collide with the 50,000 stored rows, under object-trump (the
/// stored rows take the new values). The baseline is what a program writing SQL by hand does:
/// one transaction of prepared `INSERT … ON CONFLICT(code) DO UPDATE` statements.
enum ConstraintWorkloads {
    static let storedCount = 50_000
    static let importCount = 100_000

    static func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Item", uniquenessConstraints: [["code"]]) {
                .attribute("code", .string, optional: false, defaultValue: .string(""))
                .attribute("value", .double, optional: false, defaultValue: .double(0))
                .attribute("count", .integer64, optional: false, defaultValue: .integer(0))
            }
        }
    }

    /// Imported row `i`: codes `c0`… (the first `storedCount` are stored already).
    private static func code(_ i: Int) -> String { "c\(i)" }

    private static func container(at url: URL) throws -> PersistentContainer {
        let container = PersistentContainer(name: "Items", managedObjectModel: try makeModel())
        var description = PersistentStoreDescription(url: url)
        description.setSQLitePragma("synchronous", "NORMAL")
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        return container
    }

    /// A store holding the stored rows (value 1, count 1), in a fresh directory (untimed).
    private static func populatedStore() throws -> (directory: URL, url: URL) {
        let directory = try Scratch.makeDirectory("constraints")
        let url = directory.appendingPathComponent("I.sqlite")
        let container = try container(at: url)
        let context = container.newBackgroundContext()
        let rows: [[String: Any]] = (0..<storedCount).map { ["code": code($0), "value": 1.0, "count": 1] }
        _ = try context.performAndWait { try context.execute(BatchInsertRequest(entityName: "Item", objects: rows)) }
        let coordinator = container.persistentStoreCoordinator
        for store in coordinator.persistentStores { try coordinator.removePersistentStore(store) }
        return (directory, url)
    }

    /// Checks the import's outcome: every code once, the colliding rows updated.
    private static func verify(_ url: URL) throws {
        let database = try RawDatabase.openWAL(path: url.path)
        let rows = try database.integer("SELECT COUNT(*) FROM ZITEM")
        guard rows == importCount else { throw BenchmarkError.wrongResultCount(found: Int(rows), expected: importCount) }
        let updated = try database.integer("SELECT COUNT(*) FROM ZITEM WHERE ZVALUE = 2")
        guard updated == importCount else { throw BenchmarkError.wrongResult("\(updated) rows hold the imported value, expected \(importCount)") }
    }

    static func contextSave() throws -> Duration {
        let store = try populatedStore()
        defer { Scratch.remove(store.directory) }
        let container = try container(at: store.url)
        let context = container.newBackgroundContext()
        context.mergePolicy = .mergeByPropertyObjectTrump
        let time = try measure {
            try context.performAndWait {
                for i in 0..<importCount {
                    let item = try context.insertNewObject(forEntityName: "Item")
                    try item.setValue(code(i), forKey: "code")
                    try item.setValue(2.0, forKey: "value")
                    try item.setValue(i, forKey: "count")
                }
                try context.save()
            }
        }
        let coordinator = container.persistentStoreCoordinator
        for store in coordinator.persistentStores { try coordinator.removePersistentStore(store) }
        try verify(store.url)
        return time
    }

    static func rawUpsert() throws -> Duration {
        let store = try populatedStore()
        defer { Scratch.remove(store.directory) }
        let database = try RawDatabase.openWAL(path: store.url.path)
        let statement = try database.prepare("""
            INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZCODE, ZVALUE, ZCOUNT) VALUES (?, 1, 1, ?, ?, ?)
            ON CONFLICT (ZCODE) DO UPDATE SET ZVALUE = excluded.ZVALUE, ZCOUNT = excluded.ZCOUNT, Z_OPT = Z_OPT + 1
            """)
        let time = try measure {
            try database.execute("BEGIN")
            for i in 0..<importCount {
                sqlite3_bind_int64(statement.handle, 1, Int64(storedCount + i + 1))
                _ = statement.bind(code(i), at: 2)
                sqlite3_bind_double(statement.handle, 3, 2.0)
                sqlite3_bind_int64(statement.handle, 4, Int64(i))
                try database.check(sqlite3_step(statement.handle), "upsert", expected: SQLITE_DONE)
                sqlite3_reset(statement.handle)
            }
            try database.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(storedCount + importCount) WHERE Z_ENT = 1; COMMIT")
        }
        try verify(store.url)
        return time
    }

    static func workloads() -> [Workload] {
        [
            Workload(
                name: "constraints.object-trump-save-100k-half-stored", baselineName: "raw-sqlite-upsert",
                ours: contextSave, baseline: rawUpsert),
        ]
    }
}
