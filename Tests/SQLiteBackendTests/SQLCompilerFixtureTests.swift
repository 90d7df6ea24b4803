import Foundation
import XCTest
@testable import SQLiteBackend
import StoreCore
import StoreSQL
import StoreTestSupport

/// A private in-memory SQLite database with a model's schema (created with the compiler's
/// partial-index predicates) and snapshots inserted by plain INSERT statements, plus the same
/// snapshots in an in-memory graph, so every fetch can be run both ways and compared.
final class CompilerTestDatabase {
    let model: ManagedObjectModel
    let schema: SQLSchema
    let compiler: SQLCompiler
    let connection: SQLiteConnection
    let graph: SnapshotGraph
    let storeIdentifier: String

    init(model: ManagedObjectModel, snapshots: [StoreSnapshot], storeIdentifier: String) throws {
        self.model = model
        self.storeIdentifier = storeIdentifier
        schema = SQLSchema(model: model)
        compiler = SQLCompiler(schema: schema, model: model)
        connection = try SQLiteConnection(path: ":memory:", mode: .readWrite, log: .disabled)
        for statement in try schema.createStatements(model: model, predicateSQL: { [compiler] table, format in try compiler.indexPredicate(format, on: table) }) {
            try connection.execute(statement)
        }
        // In key order, so objects that sort equal come in the same order from both.
        let snapshots = snapshots.sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
        var graph = SnapshotGraph(model: model)
        graph.load(snapshots)
        self.graph = graph
        for snapshot in snapshots { try insert(snapshot) }
    }

    /// The query fixture: quakes, reports, regions.
    convenience init(_ fixture: QueryFixture) throws {
        try self.init(model: fixture.model, snapshots: Array(fixture.snapshots.values), storeIdentifier: "FIXTURE")
    }

    private func insert(_ snapshot: StoreSnapshot) throws {
        let table = try schema.table(for: snapshot.objectID.entityName)
        guard let key = snapshot.objectID.primaryKey else { return XCTFail("\(snapshot.objectID) has no key") }
        var names = ["Z_PK", "Z_ENT", "Z_OPT"]
        var values: [SQLValue] = [.integer(key), .integer(table.number), .integer(snapshot.version)]
        for column in table.columns {
            names.append(column.name)
            values.append(SQLiteValueCoder.encode(snapshot[column.property]))
        }
        let placeholders = values.indices.map { "?\($0 + 1)" }.joined(separator: ", ")
        try connection.run("INSERT INTO \(table.table) (\(names.joined(separator: ", "))) VALUES (\(placeholders))", values)
        for (name, members) in snapshot.toManyByName {
            switch table.toMany[name] {
            case .foreignKey(_, let memberTable, _, let orderColumn?)?:
                // An ordered one-to-many: the members' positions (members come first in key order).
                for (position, member) in members.enumerated() {
                    guard let memberKey = member.primaryKey else { continue }
                    try connection.run(
                        "UPDATE \(memberTable) SET \(orderColumn) = ?1 WHERE Z_PK = ?2", [.integer(Int64(position + 1)), .integer(memberKey)])
                }
            case .joinTable(_, let joinTable, let ownerColumn, let memberColumn, let orderColumn)?:
                for (position, member) in members.enumerated() {
                    guard let memberKey = member.primaryKey else { continue }
                    if let orderColumn {
                        try connection.run(
                            "INSERT OR IGNORE INTO \(joinTable) (\(ownerColumn), \(memberColumn), \(orderColumn)) VALUES (?1, ?2, ?3)",
                            [.integer(key), .integer(memberKey), .integer(Int64(position + 1))])
                    } else {
                        try connection.run(
                            "INSERT OR IGNORE INTO \(joinTable) (\(ownerColumn), \(memberColumn)) VALUES (?1, ?2)", [.integer(key), .integer(memberKey)])
                    }
                }
            default:
                continue
            }
        }
    }

    /// Runs a compiled query, returning every row's values.
    func rows(_ query: CompiledQuery) throws -> [[SQLValue]] {
        var rows: [[SQLValue]] = []
        try connection.query(query.sql, query.bindings) { row in
            rows.append((0..<row.columnCount).map { row.value(at: $0) })
        }
        return rows
    }

    /// The object IDs the SQL fetch returns, in order.
    func objectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID] {
        let query = try compiler.selectObjects(request, columns: ["t0.Z_PK", "t0.Z_ENT"])
        return try rows(query).map { row in
            guard case .integer(let key) = row[0], case .integer(let number) = row[1], let entity = schema.entityNames[number] else {
                throw FetchError(.unsupported, "unexpected row \(row)")
            }
            return ManagedObjectID(entityName: entity, storeIdentifier: storeIdentifier, primaryKey: key)
        }
    }

    /// The object IDs the in-memory graph returns, in order.
    func memoryObjectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID] {
        var request = request
        request.resultType = .managedObjectID
        guard case .objectIDs(let ids) = try graph.execute(request) else { return [] }
        return ids
    }

    func count(_ request: StoreFetchRequest) throws -> Int {
        let query = try compiler.count(request)
        guard case .integer(let count)? = try rows(query).first?.first else { return -1 }
        return Int(count)
    }

    /// Dictionary rows from SQL.
    func dictionaries(_ request: StoreFetchRequest) throws -> [[String: StoreValue]] {
        let query = try compiler.selectDictionaries(request)
        var result: [[String: StoreValue]] = []
        try connection.query(query.query.sql, query.query.bindings) { row in
            result.append(try query.read(row, dialect: schema.dialect) { entity, key in
                ManagedObjectID(entityName: entity, storeIdentifier: self.storeIdentifier, primaryKey: key)
            })
        }
        return result
    }

    /// Dictionary rows from the in-memory graph.
    func memoryDictionaries(_ request: StoreFetchRequest) throws -> [[String: StoreValue]] {
        var request = request
        request.resultType = .dictionary
        guard case .dictionaries(let rows) = try graph.execute(request) else { return [] }
        return rows
    }
}

final class SQLCompilerFixtureTests: XCTestCase {
    func testFixtureDatabaseHoldsEveryObjectOfTheQueryFixture() throws {
        let fixture = try QueryFixture()
        let database = try CompilerTestDatabase(fixture)
        for entity in ["Quake", "Report", "Region"] {
            let request = StoreFetchRequest(entityName: entity)
            XCTAssertEqual(try database.objectIDs(request).count, try database.memoryObjectIDs(request).count, entity)
        }
        XCTAssertEqual(try database.count(StoreFetchRequest(entityName: "Quake")), 5)
    }
}

extension SQLCompilerFixtureTests {
    /// The example in ``SQLCompiler``'s documentation.
    func testDocumentedExampleCompilesAsShown() throws {
        let database = try CompilerTestDatabase(try QueryFixture())
        var request = StoreFetchRequest(entityName: "Quake")
        request.predicate = try .format("magnitude > %@ AND ANY reports.author ==[c] %@", 5, "ada")
        request.sortDescriptors = [.descending("time")]
        let query = try database.compiler.selectObjects(request, columns: ["t0.Z_PK", "t0.Z_ENT"])
        XCTAssertEqual(query.sql, "SELECT t0.Z_PK, t0.Z_ENT FROM ZQUAKE t0 WHERE t0.ZMAGNITUDE > ?1 AND EXISTS (SELECT 1 FROM ZREPORT t1 WHERE t1.ZQUAKE = t0.Z_PK AND stowage_fold(t1.ZAUTHOR, 1) = ?2) ORDER BY t0.ZTIME DESC, t0.Z_PK")
        XCTAssertEqual(query.bindings, [.integer(5), .text("ada")])

        request.predicate = "magnitude > 5 AND region.name == 'Alaska'"
        request.sortDescriptors = []
        XCTAssertEqual(
            try database.compiler.selectObjects(request, columns: ["t0.Z_PK"]).sql,
            "SELECT t0.Z_PK FROM ZQUAKE t0 LEFT JOIN ZREGION t1 ON t1.Z_PK = t0.ZREGION WHERE t0.ZMAGNITUDE > ?1 AND t1.ZNAME = ?2")
    }
}
