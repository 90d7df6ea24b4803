import Foundation
import XCTest

@testable import StoreCore

/// Dictionary fetches grouped in one pass, with aggregates accumulated row by row, give the
/// rows that reading every value by name and aggregating each group's collected values gives:
/// NULL keys, several key columns, to-one keys, sub-entities, empty inputs, overflowing sums
/// and sums of strings.
final class GroupedDictionaryFetchTests: XCTestCase {
    private func aggregate(_ name: String, _ function: String, _ key: String?, as type: AttributeType? = nil) -> PropertyToFetch {
        .expression(ExpressionDescription(name: name, expression: .function(function, key.map { [.keyPath($0)] } ?? []), resultType: type))
    }

    /// The graph's rows for `request`, and the rows of the same fetch read by name.
    private func bothWays(_ request: StoreFetchRequest, _ fixture: CompiledEvaluatorFixture) throws -> (graph: [FetchedDictionary], byName: [FetchedDictionary]) {
        guard case .dictionaries(let rows) = try fixture.graph.execute(request) else {
            XCTFail("no dictionaries")
            return ([], [])
        }
        let entity = try fixture.model.entity(named: request.entityName)
        let names = request.includesSubentities ? entity.entityAndDescendantNames : [entity.name]
        let sources: [any PredicateEvaluationSource] = try fixture.graph.allSnapshots.filter { snapshot in
            guard names.contains(snapshot.objectID.entityName) else { return false }
            return try request.predicate.map { try PredicateEvaluator().evaluate($0, on: fixture.source(snapshot)) } ?? true
        }.map { fixture.source($0) }
        return (rows, try DictionaryFetch(request: request, entity: entity).rows(from: sources))
    }

    /// Rows as text, so that NaN equals NaN.
    private func text(_ rows: [FetchedDictionary]) -> [String] {
        rows.map { row in row.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }
    }

    func testGroupsByOneColumnWithANullKeyAndEveryAggregate() throws {
        let fixture = try CompiledEvaluatorFixture()
        var request = StoreFetchRequest(entityName: "Item", resultType: .dictionary)
        request.includesSubentities = false
        request.propertiesToFetch = [
            "i", aggregate("rows", "count:", nil), aggregate("counted", "count:", "d"), aggregate("sum", "sum:", "d"),
            aggregate("average", "average:", "d"), aggregate("least", "min:", "s"), aggregate("most", "max:", "s"),
            aggregate("median", "median:", "d"), aggregate("mode", "mode:", "s"), aggregate("spread", "stddev:", "d"),
            aggregate("whole", "sum:", "i", as: .integer64),
        ]
        request.propertiesToGroupBy = ["i"]
        let (rows, byName) = try bothWays(request, fixture)
        XCTAssertEqual(text(rows), text(byName))
        // Items with i = 2: r2 (d 2.5, "AB"), r8 (d 2, "\r\n"), r13 (no d, "ÇA va"), r14 (no d, "A*B").
        let two = rows.first { $0["i"] == .integer(2) }
        XCTAssertEqual(two?["rows"], .integer(4))
        XCTAssertEqual(two?["counted"], .integer(2))
        XCTAssertEqual(two?["sum"], .double(4.5))
        XCTAssertEqual(two?["average"], .double(2.25))
        XCTAssertEqual(two?["least"], .string("\r\n"))
        XCTAssertEqual(two?["most"], .string("ÇA va"))
        XCTAssertEqual(two?["whole"], .integer(8))
        // r4 and r11 have no i: one group keyed by NULL.
        let none = rows.filter { $0["i"] == .null }
        XCTAssertEqual(none.count, 1)
        XCTAssertEqual(none.first?["rows"], .integer(2))
        XCTAssertEqual(none.first?["sum"], .double(1.5))
        XCTAssertEqual(rows.map { $0["i"] ?? .null }.prefix(3), [.integer(1), .integer(2), .integer(-3)], "groups in the order first met")
    }

    func testGroupsBySeveralColumnsIncludingAToOne() throws {
        let fixture = try CompiledEvaluatorFixture()
        var request = StoreFetchRequest(entityName: "Item", resultType: .dictionary)
        request.propertiesToFetch = ["b", "owner", aggregate("n", "count:", nil), aggregate("top", "max:", "i")]
        request.propertiesToGroupBy = ["b", "owner"]
        let (rows, byName) = try bothWays(request, fixture)
        XCTAssertEqual(text(rows), text(byName))
        let ownerOne = fixture.ids["owner1"].map(StoreValue.objectID)
        XCTAssertEqual(rows.first { $0["b"] == .boolean(true) && $0["owner"] == ownerOne }?["n"], .integer(1))
        XCTAssertEqual(rows.first { $0["b"] == .null && $0["owner"] == ownerOne }?["n"], .integer(1), "r3 has no b")
        XCTAssertEqual(rows.first { $0["b"] == .null && $0["owner"] == .null }?["top"], .integer(25))
    }

    func testSubEntitiesAggregateTheirOwnIndexOfAnAttribute() throws {
        let fixture = try CompiledEvaluatorFixture()
        var request = StoreFetchRequest(entityName: "Media", resultType: .dictionary)
        request.propertiesToFetch = ["title", aggregate("n", "count:", nil), aggregate("coded", "count:", "code"), aggregate("top", "max:", "code")]
        request.propertiesToGroupBy = ["title"]
        let (rows, byName) = try bothWays(request, fixture)
        XCTAssertEqual(text(rows), text(byName))
        // Book declares code after isbn, Film before minutes: each row's own index must be read.
        XCTAssertEqual(Set(text(rows)), ["coded=2 n=2 title=\"Dune\" top=\"x\"", "coded=1 n=2 title=nil top=\"Y\""])
    }

    func testAggregatesOverNoRowsGiveOneRow() throws {
        let fixture = try CompiledEvaluatorFixture()
        var request = StoreFetchRequest(entityName: "Item", resultType: .dictionary)
        request.predicate = .constant(false)
        request.propertiesToFetch = ["s", aggregate("n", "count:", nil), aggregate("sum", "sum:", "i"), aggregate("average", "average:", "d"), aggregate("least", "min:", "d")]
        let (rows, byName) = try bothWays(request, fixture)
        XCTAssertEqual(rows, byName)
        XCTAssertEqual(rows, [["s": .null, "n": .integer(0), "sum": .integer(0), "average": .null, "least": .null]])
        request.propertiesToGroupBy = ["s"]
        XCTAssertEqual(try bothWays(request, fixture).graph, [], "no rows, no groups")
    }

    func testIntegerSumsThatOverflowBecomeDoublesAddedInRowOrder() throws {
        let fixture = try CompiledEvaluatorFixture()
        var request = StoreFetchRequest(entityName: "Item", resultType: .dictionary)
        request.includesSubentities = false
        request.propertiesToFetch = [aggregate("sum", "sum:", "i"), aggregate("low", "min:", "i"), aggregate("high", "max:", "d")]
        let (rows, byName) = try bothWays(request, fixture)
        XCTAssertEqual(rows, byName)
        let values: [Int64] = [1, 2, -3, .max, 0, 3, 2, 1, 10, 25, 2, 2]
        XCTAssertEqual(rows.first?["sum"], .double(values.map(Double.init).reduce(0, +)))
        XCTAssertEqual(rows.first?["low"], .integer(-3))
    }

    func testSumsOfStringsRaiseTheSameError() throws {
        let fixture = try CompiledEvaluatorFixture()
        var request = StoreFetchRequest(entityName: "Item", resultType: .dictionary)
        request.propertiesToFetch = ["i", aggregate("sum", "sum:", "s")]
        request.propertiesToGroupBy = ["i"]
        var graphError: FetchError?
        XCTAssertThrowsError(try fixture.graph.execute(request)) { graphError = $0 as? FetchError }
        let entity = try fixture.model.entity(named: "Item")
        let sources: [any PredicateEvaluationSource] = fixture.items.map { fixture.source($0) }
        XCTAssertThrowsError(try DictionaryFetch(request: request, entity: entity).rows(from: sources)) { error in
            XCTAssertEqual(graphError?.code, .invalidArgument)
            XCTAssertEqual(graphError?.message, (error as? FetchError)?.message)
        }
    }

    func testUngroupedColumnsWithExpressionsAndKeyPathsThroughRelationships() throws {
        let fixture = try CompiledEvaluatorFixture()
        var request = StoreFetchRequest(entityName: "Item", resultType: .dictionary)
        request.propertiesToFetch = [
            "s", "owner.name", "owner",
            .expression(ExpressionDescription(name: "twice", expression: .function("multiply:by:", [.keyPath("i"), .constant(2)]), resultType: .double)),
        ]
        request.sortDescriptors = [.ascending("s")]
        guard case .dictionaries(let rows) = try fixture.graph.execute(request) else { return XCTFail("no dictionaries") }
        XCTAssertEqual(rows.count, fixture.items.count)
        XCTAssertEqual(rows.first { $0["s"] == .string("ab") }?["owner.name"], .string("Ada"))
        XCTAssertEqual(rows.first { $0["s"] == .string("AB") }?["twice"], .double(4))
        XCTAssertEqual(rows.first { $0["s"] == .string("book") }?["owner"], fixture.ids["owner2"].map(StoreValue.objectID))
    }
}
