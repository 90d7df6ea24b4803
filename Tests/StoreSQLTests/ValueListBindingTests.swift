import Foundation
import StoreCore
import StoreSQL
import Testing
#if Postgres
import PostgresBackend
#endif

/// A long `IN` list of constants is bound as one value in each dialect (``SQLDialect/valueList(_:)``):
/// a JSON array in SQLite, an array literal in PostgreSQL — so any number of values takes one
/// parameter, under PostgreSQL's limit of 65,535 too.
@Suite struct ValueListBindingTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Post") {
                .attribute("title", .string)
                .attribute("views", .integer64)
                .attribute("published", .date)
            }
        }
    }

    /// The statements one fetch of `predicate` sends.
    private func sent(_ dialect: Dialect, _ format: String, _ list: Any) throws -> [RecordingConnection.Statement] {
        let store = RecordingStore(model: try Self.model(), dialect: dialect.sql)
        var request = StoreFetchRequest(entityName: "Post", resultType: .managedObjectID)
        request.predicate = try StorePredicate(format: format, argumentArray: [list])
        _ = try store.execute(request)
        return store.connection.statements
    }

    @Test(arguments: Dialect.allCases)
    func aLongListOfTextIsOneBoundValue(_ dialect: Dialect) throws {
        // 70,000 titles, one of them twice: more than either database takes parameters.
        let titles = (0..<70_000).map { "t\($0)" } + ["t5"]
        let statements = try sent(dialect, "title IN %@", titles)
        #expect(statements.count == 1)
        let statement = try #require(statements.first)
        #expect(statement.values.count == 1)
        switch dialect {
        case .sqlite:
            #expect(statement.sql.contains("t0.ZTITLE IN (SELECT value FROM json_each(?1))"))
            #expect(statement.values.first == .text("[" + titles.map { "\"\($0)\"" }.joined(separator: ",") + "]"))
        #if Postgres
        case .postgres:
            #expect(statement.sql.contains("t0.ZTITLE IN (SELECT unnest($1::TEXT[]))"))
            #expect(statement.values.first == .text("{" + titles.map { "\"\($0)\"" }.joined(separator: ",") + "}"))
        #endif
        }
    }

    @Test(arguments: Dialect.allCases)
    func numbersAndDatesAreOneBoundValueToo(_ dialect: Dialect) throws {
        let views = try sent(dialect, "views IN %@", Array(0..<200))
        let dates = try sent(dialect, "published IN %@", (0..<200).map { Date(timeIntervalSinceReferenceDate: Double($0) + 0.5) })
        #expect(views.first?.values.count == 1 && dates.first?.values.count == 1)
        #if Postgres
        if dialect == .postgres {
            #expect(views.first?.sql.contains("IN (SELECT unnest($1::BIGINT[]))") == true)
            #expect(dates.first?.sql.contains("IN (SELECT unnest($1::DOUBLE PRECISION[]))") == true)
            #expect(dates.first?.values.first == .text("{" + (0..<200).map { "\(Double($0) + 0.5)" }.joined(separator: ",") + "}"))
        }
        #endif
    }

    #if Postgres
    @Test func postgresArrayLiteralsQuoteTextAndRefuseMixedKinds() throws {
        let dialect = PostgresDialects.dialect
        let text = try #require(dialect.valueList([.text(#"say "hi""#), .text(#"a\b"#), .text("NULL"), .text("")]))
        #expect(text.value == .text(#"{"say \"hi\"","a\\b","NULL",""}"#))
        #expect(text.isAmong("$3") == "IN (SELECT unnest($3::TEXT[]))")
        #expect(dialect.valueList([.integer(1), .real(2.5)]) == nil)
        #expect(dialect.valueList([.real(.infinity)]) == nil)
        #expect(dialect.valueList([.blob(Data([1]))]) == nil)
        #expect(dialect.valueList([]) == nil)
    }
    #endif
}
