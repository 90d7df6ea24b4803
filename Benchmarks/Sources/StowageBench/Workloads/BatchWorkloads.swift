import Foundation
import GRDBSQLite
import Stowage

/// Batch requests on 1,000,000 rows of a four-attribute entity, next to raw SQLite doing the same
/// job well (prepared inserts of the same rows in one transaction; one UPDATE or DELETE
/// statement making the same change) and to a context doing it object by object (insert and
/// save; fetch, change and save; fetch, delete and save). Each runs with history off, and ours
/// also with history on. Extra raw baselines give the floors: inserts of values computed straight
/// into the bindings, and an update that leaves the version column alone.
enum BatchWorkloads {
    static let rowCount = 1_000_000

    static func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Reading") {
                .attribute("value", .double, optional: false, defaultValue: .double(0))
                .attribute("count", .integer64, optional: false, defaultValue: .integer(0))
                .attribute("label", .string, optional: false, defaultValue: .string(""))
                .attribute("time", .date)
            }
        }
    }

    static func row(_ i: Int) -> [String: Any] {
        ["value": Double(i % 1000) / 10, "count": i, "label": "r\(i % 5000)", "time": Date(timeIntervalSinceReferenceDate: Double(i))]
    }

    static func container(at url: URL, history: Bool) throws -> PersistentContainer {
        let container = PersistentContainer(name: "Readings", managedObjectModel: try makeModel())
        var description = PersistentStoreDescription(url: url)
        description.setSQLitePragma("synchronous", "NORMAL")
        description.isHistoryTrackingEnabled = history
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        return container
    }

    private static func close(_ container: PersistentContainer) throws {
        let coordinator = container.persistentStoreCoordinator
        for store in coordinator.persistentStores { try coordinator.removePersistentStore(store) }
    }

    private static func count(_ container: PersistentContainer) throws -> Int {
        let context = container.newBackgroundContext()
        return try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Reading")) }
    }

    private static func expect(_ actual: Int, _ expected: Int, _ what: String) throws {
        guard actual == expected else { throw BenchmarkError.failed("\(what): \(actual) rows, expected \(expected)") }
    }

    // MARK: Insert

    static func insertDictionaries(history: Bool) throws -> Duration {
        let directory = try Scratch.makeDirectory("batch-insert")
        defer { Scratch.remove(directory) }
        let container = try container(at: directory.appendingPathComponent("R.sqlite"), history: history)
        let rows = prebuilt()
        let context = container.newBackgroundContext()
        let time = try measure { _ = try context.performAndWait { try context.execute(BatchInsertRequest(entityName: "Reading", objects: rows)) } }
        try expect(try count(container), rowCount, "batch insert")
        return time
    }

    static func insertFromHandler(history: Bool) throws -> Duration {
        let directory = try Scratch.makeDirectory("batch-handler")
        defer { Scratch.remove(directory) }
        let container = try container(at: directory.appendingPathComponent("R.sqlite"), history: history)
        let context = container.newBackgroundContext()
        let time = try measure { _ = try context.performAndWait { try context.execute(handlerRequest()) } }
        try expect(try count(container), rowCount, "batch insert from a handler")
        return time
    }

    /// A batch insert of the million rows, each made by its handler as it is needed.
    static func handlerRequest() -> BatchInsertRequest {
        var i = 0
        return BatchInsertRequest(entityName: "Reading") { (values: inout [String: Any]) in
            guard i < rowCount else { return true }
            values = row(i)
            i += 1
            return false
        }
    }

    /// Prepared inserts into the table Stowage created, in one transaction, of the same rows the
    /// batch insert gets: each row's dictionary read with a typed cast per value, as a program
    /// writing to SQLite by hand would. `rows` gives row `i` (built in advance or in the loop).
    static func insertRaw(rows: (Int) -> [String: Any]) throws -> Duration {
        try rawInsert { statement, i in
            let row = rows(i)
            guard let value = row["value"] as? Double, let count = row["count"] as? Int,
                let label = row["label"] as? String, let time = row["time"] as? Date else {
                throw BenchmarkError.failed("row \(i) is not a reading")
            }
            sqlite3_bind_double(statement.handle, 2, value)
            sqlite3_bind_int64(statement.handle, 3, Int64(count))
            _ = statement.bind(label, at: 4)
            sqlite3_bind_double(statement.handle, 5, time.timeIntervalSinceReferenceDate)
        }
    }

    /// The floor: the same values computed straight into the bindings, no dictionaries.
    static func insertRawValues() throws -> Duration {
        try rawInsert { statement, i in
            sqlite3_bind_double(statement.handle, 2, Double(i % 1000) / 10)
            sqlite3_bind_int64(statement.handle, 3, Int64(i))
            _ = statement.bind("r\(i % 5000)", at: 4)
            sqlite3_bind_double(statement.handle, 5, Double(i))
        }
    }

    /// One transaction of prepared inserts of `rowCount` rows into a fresh store; `bind` binds
    /// parameters 2–5 of row `i` (the key is bound here).
    private static func rawInsert(_ bind: (RawStatement, Int) throws -> Void) throws -> Duration {
        let directory = try Scratch.makeDirectory("batch-raw")
        defer { Scratch.remove(directory) }
        let url = directory.appendingPathComponent("R.sqlite")
        try close(container(at: url, history: false))
        let database = try RawDatabase.openWAL(path: url.path)
        let statement = try database.prepare("INSERT INTO ZREADING (Z_PK, Z_ENT, Z_OPT, ZVALUE, ZCOUNT, ZLABEL, ZTIME) VALUES (?, 1, 1, ?, ?, ?, ?)")
        let time = try measure {
            try database.execute("BEGIN")
            for i in 0..<rowCount {
                sqlite3_bind_int64(statement.handle, 1, Int64(i + 1))
                try bind(statement, i)
                try database.check(sqlite3_step(statement.handle), "insert", expected: SQLITE_DONE)
                sqlite3_reset(statement.handle)
            }
            try database.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(rowCount) WHERE Z_ENT = 1; COMMIT")
        }
        try expect(Int(try database.integer("SELECT COUNT(*) FROM ZREADING")), rowCount, "raw insert")
        return time
    }

    nonisolated(unsafe) private static var prebuiltRows: [[String: Any]] = []

    /// The million rows as dictionaries, built once per process (untimed).
    private static func prebuilt() -> [[String: Any]] {
        if prebuiltRows.isEmpty { prebuiltRows = (0..<rowCount).map(row) }
        return prebuiltRows
    }

    private static func insertRawFromPrebuiltRows() throws -> Duration {
        let rows = prebuilt()
        return try insertRaw { rows[$0] }
    }

    static func insertWithContext() throws -> Duration {
        let directory = try Scratch.makeDirectory("batch-context")
        defer { Scratch.remove(directory) }
        let container = try container(at: directory.appendingPathComponent("R.sqlite"), history: false)
        let context = container.newBackgroundContext()
        let time = try measure {
            try context.performAndWait {
                for i in 0..<rowCount {
                    let object = try context.insertNewObject(forEntityName: "Reading")
                    for (key, value) in row(i) { try object.setValue(value, forKey: key) }
                }
                try context.save()
            }
        }
        try expect(try count(container), rowCount, "context insert")
        return time
    }

    // MARK: Update and delete, each on a copy of one populated store

    /// A store file holding the million rows, made once per process (untimed; from a handler,
    /// so no array of rows inflates the peak memory measured for updates and deletes).
    nonisolated(unsafe) private static var populatedFile: URL?

    private static func populatedCopy() throws -> (directory: URL, url: URL) {
        if populatedFile == nil {
            let directory = try Scratch.makeDirectory("batch-populated")
            let url = directory.appendingPathComponent("R.sqlite")
            let container = try container(at: url, history: false)
            let context = container.newBackgroundContext()
            _ = try context.performAndWait { try context.execute(handlerRequest()) }
            try close(container)
            populatedFile = url
        }
        guard let source = populatedFile else { throw BenchmarkError.failed("no populated store") }
        let directory = try Scratch.makeDirectory("batch-copy")
        let url = directory.appendingPathComponent("R.sqlite")
        try FileManager.default.copyItem(at: source, to: url)
        return (directory, url)
    }

    static func update(history: Bool) throws -> Duration {
        let copy = try populatedCopy()
        defer { Scratch.remove(copy.directory) }
        let container = try container(at: copy.url, history: history)
        let context = container.newBackgroundContext()
        var request = BatchUpdateRequest(entityName: "Reading")
        request.propertiesToUpdate = ["value": try StoreExpression(format: "value * 2")]
        request.resultType = .count
        var changed = 0
        let time = try measure { changed = try context.performAndWait { try context.execute(request).count ?? 0 } }
        try expect(changed, rowCount, "batch update")
        return time
    }

    /// One raw UPDATE of every row: the same change as the batch update (value and version),
    /// or with `bumpsVersion` false the value alone (the floor).
    static func updateRaw(bumpsVersion: Bool) throws -> Duration {
        let copy = try populatedCopy()
        defer { Scratch.remove(copy.directory) }
        let database = try RawDatabase.openWAL(path: copy.url.path)
        let sql = "UPDATE ZREADING SET ZVALUE = ZVALUE * 2" + (bumpsVersion ? ", Z_OPT = Z_OPT + 1" : "")
        let time = try measure { try database.execute(sql) }
        try expect(Int(sqlite3_changes(database.handle)), rowCount, "raw update")
        return time
    }

    static func updateWithContext() throws -> Duration {
        let copy = try populatedCopy()
        defer { Scratch.remove(copy.directory) }
        let container = try container(at: copy.url, history: false)
        let context = container.newBackgroundContext()
        return try measure {
            try context.performAndWait {
                for object in try context.fetch(FetchRequest<ManagedObject>(entityName: "Reading")) {
                    try object.setValue((try object.value(forKey: "value") as? Double ?? 0) * 2, forKey: "value")
                }
                try context.save()
            }
        }
    }

    static func delete(history: Bool) throws -> Duration {
        let copy = try populatedCopy()
        defer { Scratch.remove(copy.directory) }
        let container = try container(at: copy.url, history: history)
        let context = container.newBackgroundContext()
        var request = BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Reading"))
        request.resultType = .count
        var deleted = 0
        let time = try measure { deleted = try context.performAndWait { try context.execute(request).count ?? 0 } }
        try expect(deleted, rowCount, "batch delete")
        return time
    }

    static func deleteRaw() throws -> Duration {
        let copy = try populatedCopy()
        defer { Scratch.remove(copy.directory) }
        let database = try RawDatabase.openWAL(path: copy.url.path)
        let time = try measure { try database.execute("DELETE FROM ZREADING") }
        try expect(Int(try database.integer("SELECT COUNT(*) FROM ZREADING")), 0, "raw delete")
        return time
    }

    static func deleteWithContext() throws -> Duration {
        let copy = try populatedCopy()
        defer { Scratch.remove(copy.directory) }
        let container = try container(at: copy.url, history: false)
        let context = container.newBackgroundContext()
        let time = try measure {
            try context.performAndWait {
                for object in try context.fetch(FetchRequest<ManagedObject>(entityName: "Reading")) { context.delete(object) }
                try context.save()
            }
        }
        try expect(try count(container), 0, "context delete")
        return time
    }

    static func workloads() -> [Workload] {
        typealias Side = Workload.Side
        var result: [Workload] = []
        for history in [false, true] {
            let suffix = history ? ".history" : ""
            let floor = Side(name: "raw-sqlite-values", run: insertRawValues)
            let dictionaryBaselines = [Side(name: "raw-sqlite", run: insertRawFromPrebuiltRows), floor]
                + (history ? [] : [Side(name: "context-save", run: insertWithContext)])
            result += [
                Workload(name: "batch.insert-dicts-1m\(suffix)", ours: { try insertDictionaries(history: history) }, baselines: dictionaryBaselines),
                Workload(name: "batch.insert-handler-1m\(suffix)", ours: { try insertFromHandler(history: history) },
                         baselines: [Side(name: "raw-sqlite", run: { try insertRaw(rows: row) }), floor]),
                Workload(name: "batch.update-1m\(suffix)", ours: { try update(history: history) },
                         baselines: [Side(name: "raw-sqlite", run: { try updateRaw(bumpsVersion: true) }),
                                     Side(name: "raw-sqlite-value-only", run: { try updateRaw(bumpsVersion: false) })]
                            + (history ? [] : [Side(name: "context-save", run: updateWithContext)])),
                Workload(name: "batch.delete-1m\(suffix)", ours: { try delete(history: history) },
                         baselines: [Side(name: "raw-sqlite", run: deleteRaw)] + (history ? [] : [Side(name: "context-save", run: deleteWithContext)])),
            ]
        }
        return result
    }
}
