import Foundation
import StoreCore
import StoreSQL
import Testing

/// The shared SQL store logic (`SQLStore`'s saving, fetching, history and batch requests) run on
/// a recording driver in each dialect: the statements a database would receive, in order.
@Suite struct SQLStoreStatementTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Post") {
                .attribute("title", .string)
                .attribute("price", .decimal)
                .toMany("tags", destination: "Tag", inverse: "posts")
                .toMany("photos", destination: "Photo", inverse: "post", ordered: true, deleteRule: .cascade)
            }
            EntityDescription("Tag", uniquenessConstraints: [["name"]]) {
                .attribute("name", .string)
                .toMany("posts", destination: "Post", inverse: "tags")
            }
            EntityDescription("Photo") {
                .attribute("caption", .string, preservesValueInHistoryOnDeletion: true)
                .toOne("post", destination: "Post", inverse: "photos")
            }
        }
    }

    private func store(_ dialect: Dialect) throws -> RecordingStore {
        RecordingStore(model: try Self.model(), dialect: dialect.sql)
    }

    private func snapshot(_ store: RecordingStore, _ entity: String, _ key: Int64, version: Int64 = 1,
                          values: [String: StoreValue] = [:], toMany: [String: [ManagedObjectID]] = [:]) throws -> StoreSnapshot {
        try StoreSnapshot(objectID: store.objectID(entity, key), version: version, entity: try store.model.entity(named: entity), values: values, toMany: toMany)
    }

    @Test(arguments: Dialect.allCases)
    func aSaveDeletesInsertsUpdatesThenWritesToManyInOneTransaction(_ dialect: Dialect) throws {
        let store = try store(dialect)
        let tags = [try store.objectID("Tag", 3), try store.objectID("Tag", 4)]
        var changes = StoreChangeSet()
        changes.deleted = [try snapshot(store, "Photo", 5, version: 2)]
        changes.inserted = [try snapshot(store, "Post", 11, values: ["title": .string("Hello"), "price": .decimal(Decimal(string: "9.5") ?? 0)], toMany: ["tags": tags])]
        changes.updated = [try snapshot(store, "Tag", 3, version: 7, values: ["name": .string("swift")])]
        try store.save(changes)

        let (p1, p2, p3) = (dialect.p(1), dialect.p(2), dialect.p(3))
        let join = try #require(store.schema.joinTables.first)
        #expect(store.sql.first == "BEGIN")
        #expect(store.sql.last == "COMMIT")
        let body = Array(store.sql.dropFirst().dropLast())
        #expect(body.count == 4, "\(body)")
        #expect(body.first == "DELETE FROM ZPHOTO WHERE Z_PK = \(p1) AND Z_OPT = \(p2)")
        #expect(body.dropFirst().first == "INSERT INTO ZPOST")
        let cast = dialect.sql.parameter(1, declaredType: "VARCHAR")
        #expect(body.dropFirst(2).first == "UPDATE ZTAG SET Z_OPT = Z_OPT + 1, ZNAME = \(cast) WHERE Z_PK = \(p2) AND Z_OPT = \(p3)")
        let (insert, onConflict) = dialect.sql.insertIgnoringDuplicates
        #expect(body.last?.hasPrefix("\(insert) INTO \(join.name) (\(join.ownerColumn), \(join.memberColumn)) SELECT \(p1), m.key FROM ") == true, "\(body)")
        #expect(body.last?.hasSuffix("WHERE TRUE\(onConflict)") == true, "\(body)")
        #expect(store.connection.statements.last { $0.sql == body.last }?.values == [.integer(11), dialect.sql.keyList([3, 4])])
    }

    @Test(arguments: Dialect.allCases)
    func decimalsAreBoundAsTheirColumnNeeds(_ dialect: Dialect) throws {
        let store = try store(dialect)
        var changes = StoreChangeSet()
        changes.updated = [try snapshot(store, "Post", 2, values: ["price": .decimal(Decimal(string: "1.25") ?? 0)])]
        try store.save(changes)
        let update = try #require(store.sql.first { $0.hasPrefix("UPDATE ZPOST") })
        #expect(update.contains("ZPRICE = \(dialect.sql.parameter(2, declaredType: "DECIMAL")) WHERE"), "\(update)")
        #if Postgres
        if dialect == .postgres { #expect(update.contains("ZPRICE = $2::NUMERIC")) }
        #endif
    }

    @Test(arguments: Dialect.allCases)
    func aRowChangedSinceItWasReadIsAConflictAndNothingIsWritten(_ dialect: Dialect) throws {
        let store = try store(dialect)
        store.connection.changes = { $0.hasPrefix("UPDATE ZTAG") ? 0 : 1 }
        let tagNumber = try store.schema.table(for: "Tag").number
        store.connection.rows = { $0.hasPrefix("SELECT") ? [[.integer(3), .integer(tagNumber), .integer(9), .text("rust")]] : [] }
        var changes = StoreChangeSet()
        changes.updated = [try snapshot(store, "Tag", 3, version: 7, values: ["name": .string("swift")])]
        let error = try #require(throws: MergeConflictError.self) { try store.save(changes) }
        #expect(error.conflicts.first?.storeVersion == 9)
        #expect(store.sql.last == "ROLLBACK")
        #expect(store.sql.contains { $0.hasPrefix("SELECT") && $0.contains("FROM ZTAG t0 WHERE t0.Z_PK = \(dialect.p(1)) AND t0.Z_ENT = \(dialect.p(2))") }, "the row is read again for the conflict")
    }

    @Test(arguments: Dialect.allCases)
    func aBrokenUniquenessConstraintIsNamedAfterTheRollback(_ dialect: Dialect) throws {
        let store = try store(dialect)
        let tag = try store.model.entity(named: "Tag")
        let tagNumber = try store.schema.table(for: "Tag").number
        store.insertsBreakUniqueness = true
        store.connection.rows = { $0.hasPrefix("SELECT Z_PK, Z_ENT FROM ZTAG") ? [[.integer(7), .integer(tagNumber)]] : [] }
        var changes = StoreChangeSet()
        changes.inserted = [try snapshot(store, "Tag", 12, values: ["name": .string("swift")])]
        let error = try #require(throws: ObjectValidationError.self) { try store.save(changes) }
        #expect(error.code == .uniquenessConstraint)
        #expect("\(error)".contains("\(try store.objectID("Tag", 7))"), "\(error)")
        let rollback = try #require(store.sql.firstIndex(of: "ROLLBACK"))
        let lookup = try #require(store.sql.firstIndex { $0.hasPrefix("SELECT Z_PK, Z_ENT FROM ZTAG") })
        #expect(rollback < lookup, "the other object is looked up after the failed transaction")
        #expect(store.sql[lookup].contains(dialect.sql.isSame("ZNAME", dialect.p(1), negated: false)))
        _ = tag
    }

    @Test(arguments: Dialect.allCases)
    func rowsByKeyAndToManyMembersBindTheirKeysAsOneList(_ dialect: Dialect) throws {
        let store = try store(dialect)
        let ids = try [store.objectID("Tag", 3), store.objectID("Tag", 9), store.objectID("Tag", 4)]
        _ = try store.snapshots(for: ids)
        let fetch = try #require(store.connection.statements.first)
        #expect(fetch.sql.hasSuffix("FROM ZTAG t0 WHERE t0.Z_PK \(dialect.sql.isAmongKeys(dialect.p(1)))"))
        #expect(fetch.values == [dialect.sql.keyList([3, 9, 4])])
        _ = try store.objectIDs(forRelationship: "posts", ofObjects: ids)
        let members = try #require(store.connection.statements.last)
        #expect(members.sql.contains(dialect.sql.isAmongKeys(dialect.p(1))))
        #expect(Set(try #require(members.values.first).description.filter(\.isNumber)) == Set("394"))
    }

    @Test(arguments: Dialect.allCases)
    func historyIsNumberedUnderTheLockAndWrittenManyRowsPerStatementWithTombstonesFromTheRows(_ dialect: Dialect) throws {
        let store = try store(dialect)
        store.isHistoryTrackingEnabled = true
        store.connection.rows = { $0.contains("RETURNING Z_PK") ? [[.integer(42)]] : [] }
        var changes = StoreChangeSet()
        changes.deleted = [try snapshot(store, "Photo", 5, version: 2)]
        // Keys that are not consecutive: a record per row, many rows per statement.
        changes.inserted = [try snapshot(store, "Tag", 20, values: ["name": .string("a")]), try snapshot(store, "Tag", 22, values: ["name": .string("b")])]
        try store.save(changes)
        let sql = store.sql
        let lock = try #require(sql.firstIndex(of: "LOCK HISTORY"))
        let number = try #require(sql.firstIndex { $0.hasPrefix("INSERT INTO Z_HISTORYTRANSACTION") && $0.hasSuffix("RETURNING Z_PK") })
        #expect(lock < number)
        let tombstones = try #require(sql.first { $0.hasPrefix("INSERT INTO Z_HISTORYCHANGE") && $0.contains("ZTOMBSTONE") })
        #expect(tombstones.contains("SELECT 42, 2, t0.Z_ENT, t0.Z_PK, CASE t0.Z_ENT WHEN"))
        #expect(tombstones.contains(dialect.sql.jsonObject(["'caption'", "t0.ZCAPTION"])))
        let deleteRow = try #require(sql.firstIndex { $0.hasPrefix("DELETE FROM ZPHOTO") })
        #expect(try #require(sql.firstIndex(of: tombstones)) < deleteRow, "the tombstone is read before the row goes")
        let inserts = sql.filter { $0.hasPrefix("INSERT INTO Z_HISTORYCHANGE") && $0.contains("VALUES") }
        #expect(inserts.count == 1, "both insertions in one statement: \(inserts)")
        #expect(inserts.first?.contains("), (") == true)
    }

    @Test(arguments: Dialect.allCases)
    func consecutiveNewRowsOfASaveAreRecordedInHistoryAsOneRangeOfKeys(_ dialect: Dialect) throws {
        let store = try store(dialect)
        store.isHistoryTrackingEnabled = true
        store.connection.rows = { $0.contains("RETURNING Z_PK") ? [[.integer(42)]] : [] }
        var changes = StoreChangeSet()
        changes.inserted = try (20...22).map { try snapshot(store, "Tag", $0, values: ["name": .string("t\($0)")]) }
        try store.save(changes)
        let history = store.sql.filter { $0.hasPrefix("INSERT INTO Z_HISTORYCHANGE") }
        #expect(history.count == 1, "\(history)")
        // One row for the three: IDs 101–103 (after the 100 given out), keys 20 through 22.
        let tag = try store.schema.table(for: "Tag").number
        #expect(history.first?.hasSuffix("VALUES (103, 42, 0, \(tag), 20, 22, NULL)") == true, "\(history)")
        #expect(store.sql.contains("HISTORY CHANGE IDS THROUGH 103"))
    }

    @Test(arguments: Dialect.allCases)
    func aBatchDeleteAppliesDeleteRulesInSQLThroughTheConnectionsOwnTable(_ dialect: Dialect) throws {
        let store = try store(dialect)
        let postNumber = try store.schema.table(for: "Post").number
        store.connection.rows = { $0.hasPrefix("SELECT DISTINCT ent FROM") ? [[.integer(postNumber)]] : [] }
        store.connection.changes = { $0.contains("SELECT Z_ENT, Z_PK FROM ZPHOTO") ? 0 : 1 }   // the cascade adds nothing new
        let request = StoreBatchRequest(.delete(.fetchRequest(StoreFetchRequest(entityName: "Post"))), model: store.model, wantsObjectIDs: false)
        _ = try store.execute(request)
        let sql = store.sql
        let selected = dialect.sql.temporaryTable("stowage_batch_delete", columns: "", primaryKey: "").name
        let (insert, onConflict) = dialect.sql.insertIgnoringDuplicates
        #expect(sql.contains { $0.hasPrefix("CREATE TEMP TABLE IF NOT EXISTS stowage_batch_delete") })
        #expect(sql.contains { $0.hasPrefix("\(insert) INTO \(selected) (ent, pk) SELECT") && $0.hasSuffix(onConflict) })
        // The photos cascade: their keys join the selection before anything is deleted.
        let cascade = try #require(sql.firstIndex { $0.contains("FROM ZPHOTO WHERE Z_PK IN (SELECT Z_PK FROM ZPHOTO WHERE ZPOST IN (SELECT pk FROM \(selected)") }, "\(sql)")
        let firstDelete = try #require(sql.firstIndex { $0.hasPrefix("DELETE FROM ZP") })
        #expect(cascade < firstDelete)
        #expect(sql.contains("DELETE FROM ZPOST WHERE Z_PK IN (SELECT pk FROM \(selected) WHERE ent IN (\(try store.schema.table(for: "Post").number)))"))
        #expect(sql.last == "COMMIT")
    }

    @Test(arguments: Dialect.allCases)
    func aBatchDeleteOfEveryRowOfATableRecordsItsHistoryThenDeletesWithoutACondition(_ dialect: Dialect) throws {
        let model = try ManagedObjectModel { EntityDescription("Reading") { .attribute("value", .double, preservesValueInHistoryOnDeletion: true) } }
        let store = RecordingStore(model: model, dialect: dialect.sql)
        store.isHistoryTrackingEnabled = true
        store.connection.rows = { $0.contains("RETURNING Z_PK") ? [[.integer(42)]] : [] }
        _ = try store.execute(StoreBatchRequest(.delete(.fetchRequest(StoreFetchRequest(entityName: "Reading"))), model: model, wantsObjectIDs: false))
        let sql = store.sql
        // One statement each, however many rows: the tombstones read from the rows, then the
        // rows gone with no WHERE clause (which SQLite empties without visiting each row).
        let tombstones = try #require(sql.firstIndex { $0.hasPrefix("INSERT INTO Z_HISTORYCHANGE") && $0.contains("ZTOMBSTONE") }, "\(sql)")
        let delete = try #require(sql.firstIndex(of: "DELETE FROM ZREADING"), "\(sql)")
        #expect(tombstones < delete)
        #expect(sql.filter { $0.hasPrefix("DELETE FROM ZREADING") }.count == 1)
        #expect(!sql.contains { $0.contains("stowage_batch_delete") }, "no temporary table: \(sql)")
    }
}
