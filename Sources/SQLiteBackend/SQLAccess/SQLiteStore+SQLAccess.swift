import Foundation
import StoreCore
import StoreSQL

extension PersistentStoreOption {
    /// Runs `ANALYZE` when the store is loaded (Core Data's `NSSQLiteAnalyzeOption`), so SQLite's
    /// query planner knows the tables' and indexes' statistics.
    public static let sqliteAnalyze = PersistentStoreOption(rawValue: "NSSQLiteAnalyzeOption")
    /// Rebuilds the file with `VACUUM` when the store is loaded (Core Data's
    /// `NSSQLiteManualVacuumOption`), giving back the space of deleted rows.
    public static let sqliteManualVacuum = PersistentStoreOption(rawValue: "NSSQLiteManualVacuumOption")
}

extension SQLiteStore {
    /// Runs your own SQL on a reader connection, in one read transaction (every statement sees
    /// the same committed state) — the escape hatch for reports and full-text search. Tables and
    /// columns are Core Data's (docs/sqlite-layout.md: `Z<ENTITY>`, `Z<PROPERTY>`, `Z_PK`).
    ///
    /// For example:
    ///
    /// ```swift
    /// let store = try XCTUnwrap(container.persistentStoreCoordinator.persistentStores.first as? SQLiteStore)
    /// let busiest = try store.readDatabase { db in
    ///     try db.rows("SELECT ZPLACE AS place, COUNT(*) AS n FROM ZQUAKE GROUP BY ZPLACE ORDER BY n DESC LIMIT 5")
    /// }
    /// ```
    ///
    /// - Throws: ``/StoreCore/StoreError`` with SQLite's message; what `body` throws.
    public func readDatabase<T>(_ body: (SQLiteDatabase) throws -> T) throws -> T {
        try read { connection in try body(SQLiteDatabase(connection: connection, store: self)) }
    }

    /// Runs your own SQL on the writer connection inside one write transaction of the store's
    /// own (saves and batch requests wait for it; a throw rolls everything back). The objects you
    /// declare in `touching` are recorded as one persistent-history transaction (when the store
    /// tracks history); the store forgets rows it had prefetched. Contexts holding changed objects
    /// see the change once they merge it — from history, or by
    /// `ManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)` with the same IDs — and
    /// live queries and remote change notifications see it as another writer's commit (with
    /// ``/StoreCore/PersistentStoreOption/remoteChangeNotificationPost``). Use it for maintenance
    /// too: `ANALYZE`, `PRAGMA optimize` (statements that cannot run inside a transaction —
    /// `VACUUM` and `VACUUM INTO` — are refused by SQLite: use `PersistentStoreOption.sqliteManualVacuum`,
    /// and for a copy of the store while it is in use, a backup with
    /// ``/StoreCore/PersistentStoreCoordinator/replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)``).
    ///
    /// For example:
    ///
    /// ```swift
    /// try store.writeDatabase(touching: SQLTouchedObjects(updated: ids), transactionAuthor: "nightly") { db in
    ///     try db.execute("UPDATE ZPOST SET ZVIEWS = 0")
    /// }
    /// ```
    ///
    /// - Throws: ``/StoreCore/StoreError``: `readOnly` for a read-only store; SQLite's errors;
    ///   `unknownEntity` for a declared object of an entity the store does not hold. Nothing is
    ///   written when it throws.
    public func writeDatabase<T>(
        touching objects: SQLTouchedObjects = .none, transactionAuthor: String? = nil, _ body: (SQLiteDatabase) throws -> T
    ) throws -> T {
        guard !isReadOnly else { throw StoreError(.readOnly, url: url, "the store is read-only; nothing was written") }
        let result = try sqlite {
            try pool.write { connection in
                try connection.transaction {
                    let result = try body(SQLiteDatabase(connection: connection, store: self))
                    if isHistoryTrackingEnabled, !objects.isEmpty {
                        var history = try SQLHistoryWriter(store: self, connection: connection, author: transactionAuthor, contextName: nil)
                        for (type, ids) in [(PersistentHistoryChange.ChangeType.insert, objects.inserted), (.update, objects.updated), (.delete, objects.deleted)] {
                            for id in ids {
                                guard id.storeIdentifier == identifier, let key = id.primaryKey, let table = schema.tables[id.entityName] else {
                                    throw StoreError(.unknownEntity, objectID: id, "the object is not one of this store's")
                                }
                                try history.record(type, entityNumber: table.number, key: key)
                            }
                        }
                        try history.finish()
                    }
                    return result
                }
            }
        }
        prefetched.removeAll()
        return result
    }

    /// Runs the maintenance the description asks for when the store is loaded: `ANALYZE`, `VACUUM`.
    func runLoadMaintenance(_ description: PersistentStoreDescription) throws {
        guard !isReadOnly else { return }
        if description.options[.sqliteManualVacuum]?.isTrue == true {
            try sqlite { try pool.write { try $0.execute("VACUUM") } }
        }
        if description.options[.sqliteAnalyze]?.isTrue == true {
            try sqlite { try pool.write { try $0.execute("ANALYZE") } }
        }
    }
}

extension StoreValue {
    /// Whether an option value says yes (`true`, or a non-zero number).
    var isTrue: Bool {
        switch self {
        case .boolean(let flag): flag
        case .integer(let number): number != 0
        case .string(let text): ["1", "yes", "true"].contains(text.lowercased())
        default: false
        }
    }
}
