import Foundation
import StoreCore
import StoreSQL
import Testing

/// A lookup of rows by a list of values (``ValueListFetching``, a save's constraint check) sends
/// the statement an object fetch with the predicate `key IN {values…}` sends — the same entity
/// filter, the same kinds left out, the same list bound as one value — in every dialect; a long
/// list in a dialect with tables of values (SQLite) is joined to the rows instead of tested with
/// `IN`, the same list bound the same way.
@Suite struct ValueListFetchingTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Item", uniquenessConstraints: [["code"]]) {
                .attribute("code", .string)
                .attribute("count", .integer64)
                .attribute("token", .uuid)
            }
            EntityDescription("SpecialItem", parent: "Item") {
                .attribute("grade", .integer16)
            }
            EntityDescription("RareItem", parent: "SpecialItem") {
                .attribute("origin", .string)
            }
        }
    }

    /// The statements a lookup sends, then those the equivalent predicate fetch sends.
    private func statements(
        _ dialect: Dialect, _ entity: String, _ key: String, _ values: [StoreValue]
    ) throws -> (lookup: [RecordingConnection.Statement], fetch: [RecordingConnection.Statement]) {
        let lookupStore = RecordingStore(model: try Self.model(), dialect: dialect.sql)
        _ = try lookupStore.snapshots(ofEntity: entity, whose: key, isAmong: values)
        let fetchStore = RecordingStore(model: try Self.model(), dialect: dialect.sql)
        var request = StoreFetchRequest(entityName: entity, resultType: .managedObject)
        request.predicate = .comparison(StoreComparison(.keyPath(key), .in, .aggregate(values.map(StoreExpression.constant))))
        _ = try fetchStore.execute(request)
        return (lookupStore.connection.statements, fetchStore.connection.statements)
    }

    /// The fetch's statement with its `key IN (SELECT value FROM json_each(?1))` made a join —
    /// `FROM json_each(?1) AS q_values CROSS JOIN <table> WHERE … key = q_values.value` — in a
    /// dialect with tables of values; the fetch's statement itself otherwise.
    private func expectedLookup(_ dialect: Dialect, _ fetch: RecordingConnection.Statement) -> RecordingConnection.Statement {
        let list = " IN (SELECT value FROM json_each(?1))"
        guard dialect.sql.valueTable([.text("a")]) != nil, fetch.sql.hasSuffix(list),
            let from = fetch.sql.range(of: " FROM "), let clause = fetch.sql.range(of: " WHERE ")
        else { return fetch }
        let columns = fetch.sql[..<from.lowerBound], table = fetch.sql[from.upperBound..<clause.lowerBound]
        let conditions = fetch.sql[clause.upperBound...].dropLast(list.count)
        return RecordingConnection.Statement(
            sql: "\(columns) FROM json_each(?1) AS q_values CROSS JOIN \(table) WHERE \(conditions) = q_values.value", values: fetch.values)
    }

    @Test(arguments: Dialect.allCases)
    func aLongListOfTextIsTheFetchesListJoinedWhereTheDialectCan(_ dialect: Dialect) throws {
        let values = (0..<5_000).map { StoreValue.string("c\($0)") } + [.string("c7")]
        let sent = try statements(dialect, "Item", "code", values)
        #expect(sent.lookup.count == 1)
        #expect(sent.lookup == sent.fetch.map { expectedLookup(dialect, $0) })
        #expect(sent.lookup.first?.values.count == 1, "the list is one bound value")
        if dialect == .sqlite {
            #expect(sent.lookup.first?.sql.hasSuffix("FROM json_each(?1) AS q_values CROSS JOIN ZITEM t0 WHERE t0.ZCODE = q_values.value") == true)
        }
    }

    @Test(arguments: Dialect.allCases)
    func shortListsNullsAndOtherKindsAreTheFetchesStatement(_ dialect: Dialect) throws {
        let cases: [(String, String, [StoreValue])] = [
            ("Item", "code", [.string("a"), .string("b"), .string("a")]),
            ("Item", "code", [.string("a"), .null, .integer(3)]),
            ("Item", "code", [.string("only")]),
            ("Item", "count", (0..<300).map { StoreValue.integer(Int64($0)) }),
            ("Item", "token", (0..<150).map { _ in StoreValue.uuid(UUID()) }),
            ("Item", "code", []),
        ]
        for (entity, key, values) in cases {
            let sent = try statements(dialect, entity, key, values)
            #expect(sent.lookup == sent.fetch.map { expectedLookup(dialect, $0) }, "\(key) among \(values.count) values")
        }
    }

    @Test(arguments: Dialect.allCases)
    func aSubEntitysRowsAreFilteredAsTheFetchFiltersThem(_ dialect: Dialect) throws {
        let values = (0..<200).map { StoreValue.string("c\($0)") }
        for entity in ["Item", "SpecialItem", "RareItem"] {
            let sent = try statements(dialect, entity, "code", values)
            #expect(sent.lookup == sent.fetch.map { expectedLookup(dialect, $0) }, "\(entity)")
            let sql = sent.lookup.first?.sql ?? ""
            let filtered = sql.contains("t0.Z_ENT = ") || sql.contains("t0.Z_ENT IN (")
            #expect(filtered == (entity != "Item"), "\(entity): only a sub-entity's rows are filtered by entity")
        }
    }

    @Test func anUnknownKeyIsRefusedAsTheFetchRefusesIt() throws {
        let store = RecordingStore(model: try Self.model(), dialect: Dialect.sqlite.sql)
        #expect(throws: FetchError.self) { try store.snapshots(ofEntity: "Item", whose: "nothing", isAmong: [.string("a")]) }
        #expect(throws: (any Error).self) { try store.snapshots(ofEntity: "Nothing", whose: "code", isAmong: [.string("a")]) }
        #expect(store.connection.statements.isEmpty)
    }
}
