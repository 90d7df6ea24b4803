import Foundation
import StoreCore
import StoreSQL
import Testing

/// The compiled-SQL cache of the shared SQL store (``StoreSQL/CompiledQueryCache``), in each
/// dialect: a request of a shape compiled before runs the same SQL text with its own values
/// bound; constants that change the SQL get their own.
@Suite struct CompiledQueryCacheTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Post") {
                .attribute("title", .string)
                .attribute("views", .integer64)
                .attribute("score", .double)
                .attribute("published", .date)
            }
        }
    }

    private func request(_ format: String, _ arguments: Any..., limit: Int = 0, offset: Int = 0) throws -> StoreFetchRequest {
        var request = StoreFetchRequest(entityName: "Post", resultType: .managedObjectID)
        request.predicate = try StorePredicate(format: format, argumentArray: arguments)
        request.sortDescriptors = [.descending("published")]
        request.fetchLimit = limit
        request.fetchOffset = offset
        return request
    }

    /// Runs the requests and returns the statements they sent.
    private func statements(_ store: RecordingStore, _ requests: [StoreFetchRequest]) throws -> [RecordingConnection.Statement] {
        let before = store.connection.statements.count
        for request in requests { _ = try store.execute(request) }
        return Array(store.connection.statements.dropFirst(before))
    }

    @Test(arguments: Dialect.allCases)
    func aRequestOfACompiledShapeRunsItsSQLWithItsOwnValues(_ dialect: Dialect) throws {
        let store = RecordingStore(model: try Self.model(), dialect: dialect.sql)
        let published = Date(timeIntervalSinceReferenceDate: 1000), later = Date(timeIntervalSinceReferenceDate: 2000)
        let sent = try statements(store, [
            try request("score > %@ AND published > %@", 2.5, published, limit: 100),
            try request("score > %@ AND published > %@", 4.0, later, limit: 10),
        ])
        #expect(sent.count == 2)
        #expect(sent[0].sql == sent[1].sql)
        #expect(sent[0].values == [.real(2.5), .real(1000), .integer(100), .integer(0)])
        #expect(sent[1].values == [.real(4.0), .real(2000), .integer(10), .integer(0)])
        #expect(store.compiler.cache.statistics.hits == 1)
        // A count of the same shape is another statement, compiled once and then reused too.
        var count = try request("score > %@ AND published > %@", 1.0, later, limit: 5)
        count.resultType = .count
        let counted = try statements(store, [count, count])
        #expect(counted.count == 2 && counted[0].sql != sent[0].sql && counted[0] == counted[1])
        #expect(counted[0].values == [.real(1.0), .real(2000), .integer(5), .integer(0)])
        #expect(store.compiler.cache.statistics.hits == 2)
    }

    @Test(arguments: Dialect.allCases)
    func constantsThatChangeTheSQLGetTheirOwn(_ dialect: Dialect) throws {
        let store = RecordingStore(model: try Self.model(), dialect: dialect.sql)
        let pairs: [(StoreFetchRequest, StoreFetchRequest, String)] = [
            (try request("title == %@", "a"), try request("title == nil"), "NULL and a value"),
            (try request("title IN %@", ["a"]), try request("title IN %@", ["a", "b"]), "IN lists of other lengths"),
            (try request("views == %@ OR views == %@", 3, 4), try request("views == %@ OR views == %@", 5, 5), "equal constants"),
            (try request("views > %@", 3, limit: 5), try request("views > %@", 5, limit: 5), "a constant equal to the limit"),
            (try request("published > %@", Date(timeIntervalSinceReferenceDate: 5)), try request("published > %@", 5), "a date and a number"),
            (try request("score > %@", 2), try request("score > %@", 2.5), "an integer and a double"),
            (try request("score > %@", 3.5, limit: 5), try request("score > %@", 3.5, limit: 5, offset: 2), "an offset"),
        ]
        // Each is what compiling it afresh gives (the first five pairs differ in their SQL text).
        let fresh = SQLCompiler(schema: store.schema, model: store.model, cacheCapacity: 0)
        for (index, (first, second, what)) in pairs.enumerated() {
            let sent = try statements(store, [first, second])
            let expected = try [first, second].map { try fresh.selectObjects($0, columns: ["t0.Z_PK", "t0.Z_ENT"]) }
            #expect(sent.map(\.sql) == expected.map(\.sql) && sent.map(\.values) == expected.map(\.bindings), "\(what): \(sent)")
            if index < 5 { #expect(sent.count == 2 && sent[0].sql != sent[1].sql, "\(what): \(sent)") }
        }
        #expect(store.compiler.cache.statistics.hits == 0)
        // The string operators rewrite their constants (folded here): never reused, always right.
        let folded = try statements(store, [try request("title BEGINSWITH[c] %@", "Ab"), try request("title BEGINSWITH[c] %@", "Xyz")])
        #expect(folded.map(\.values) == [[.text("ab")], [.text("xyz")]])
        #expect(store.compiler.cache.statistics.hits == 0)
        // Equal constants, then other equal ones: the same shape.
        let equal = try statements(store, [try request("views == %@ OR views == %@", 7, 7)])
        #expect(equal.first?.values == [.integer(7)])
        #expect(store.compiler.cache.statistics.hits == 1)
    }

    @Test(arguments: Dialect.allCases)
    func theCacheKeepsAtMostItsCapacityDroppingTheLeastRecentlyUsed(_ dialect: Dialect) throws {
        let model = try Self.model()
        let compiler = SQLCompiler(schema: SQLSchema(model: model, dialect: dialect.sql), model: model, cacheCapacity: 2)
        let a = try request("views > %@", 1), b = try request("score > %@", 1.5), c = try request("title == %@", "c")
        for request in [a, b, a, c] { _ = try compiler.selectObjects(request, columns: ["t0.Z_PK"]) }
        #expect(compiler.cache.count == 2)
        #expect(compiler.cache.statistics.hits == 1 && compiler.cache.statistics.misses == 3)
        // `b` was the least recently used: it was dropped, `a` and `c` are kept.
        for request in [a, c, b] { _ = try compiler.selectObjects(request, columns: ["t0.Z_PK"]) }
        #expect(compiler.cache.statistics.hits == 3 && compiler.cache.statistics.misses == 4)
        let none = SQLCompiler(schema: SQLSchema(model: model, dialect: dialect.sql), model: model, cacheCapacity: 0)
        for request in [a, a] { _ = try none.selectObjects(request, columns: ["t0.Z_PK"]) }
        #expect(none.cache.count == 0 && none.cache.statistics.hits == 0 && none.cache.statistics.misses == 0)
    }
}
