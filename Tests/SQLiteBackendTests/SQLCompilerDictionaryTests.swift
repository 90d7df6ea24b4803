import Foundation
import XCTest
@testable import SQLiteBackend
import StoreCore
import StoreSQL
import StoreTestSupport

/// Dictionary fetches: SQLite must give the rows the in-memory `DictionaryFetch` gives —
/// columns, key paths through to-ones, objects as IDs, grouping, aggregates, having, distinct,
/// sorting, limits and result types.
final class SQLCompilerDictionaryTests: XCTestCase {
    private func expression(_ name: String, _ format: String, _ type: AttributeType? = nil) throws -> PropertyToFetch {
        .expression(ExpressionDescription(name: name, expression: try StoreExpression(format: format), resultType: type))
    }

    private func request(
        _ columns: [PropertyToFetch]?, groupBy: [PropertyToFetch]? = nil, having: StorePredicate? = nil,
        sort: [StoreSortDescriptor] = [], distinct: Bool = false, predicate: StorePredicate? = nil, limit: Int = 0, offset: Int = 0
    ) -> StoreFetchRequest {
        var request = StoreFetchRequest(entityName: "Quake", resultType: .dictionary)
        request.propertiesToFetch = columns
        request.propertiesToGroupBy = groupBy
        request.havingPredicate = having
        request.sortDescriptors = sort
        request.returnsDistinctResults = distinct
        request.predicate = predicate
        request.fetchLimit = limit
        request.fetchOffset = offset
        return request
    }

    private func requests() throws -> [(String, StoreFetchRequest)] {
        [
            ("every attribute", request(nil, sort: [.ascending("place")])),
            ("every attribute, unsorted page", request(nil, limit: 2, offset: 1)),
            ("to-one key paths and objects", request(["place", "region.name", "region", "time"], sort: [.descending("magnitude")])),
            ("collections are NULL", request(["place", "reports.rating"], sort: [.ascending("place")])),
            ("expressions", request([
                try expression("double", "magnitude * 2"), try expression("rounded", "magnitude", .integer64),
                try expression("asDouble", "depth", .double), try expression("count", "reports.@count"),
                try expression("label", "TERNARY(felt == TRUE, 'felt', 'not felt')"), try expression("lower", "lowercase:(region.name)"),
            ], sort: [.ascending("depth")])),
            ("having on rows", request(["place", "depth"], having: "depth > 5", sort: [.ascending("depth")])),
            ("group by a to-one key path", request([
                "region.name", try expression("n", "count:(magnitude)"), try expression("total", "sum:(depth)"),
                try expression("mean", "average:(magnitude)"), try expression("first", "min:(time)"), try expression("last", "max:(place)"),
                try expression("rows", "count:()"),
            ], groupBy: ["region.name"], sort: [.ascending("region.name")])),
            ("median, stddev and mode per group", request([
                try expression("median", "median:(depth)"), try expression("spread", "stddev:(depth)"), try expression("usual", "mode:(felt)"),
                try expression("usualAlert", "mode:(alert)"),
            ], groupBy: ["region"], sort: [.descending("magnitude")])),
            ("group by with having", request(["felt", try expression("n", "count:(place)")], groupBy: ["felt"], having: "n > 1", sort: [.ascending("felt")])),
            ("having on aggregates and groups", request(
                [try expression("deepest", "max:(depth)"), try expression("n", "count:(depth)")], groupBy: ["region.name"],
                having: "deepest >= 35 AND n > 0", sort: [.descending("depth")])),
            ("groups in first-object order, other columns from the first object", request(
                ["region.name", "place", try expression("n", "count:(depth)")], groupBy: ["region.name"], sort: [.descending("magnitude")])),
            ("aggregates of the whole fetch", request([
                try expression("n", "count:(place)"), try expression("sum", "sum:(depth)", .double), try expression("median", "median:(magnitude)"),
                try expression("mode", "mode:(region)"),
            ].filter { $0.name != "mode" })),
            ("aggregates of no objects", request([try expression("n", "count:(place)"), try expression("sum", "sum:(depth)"), try expression("mean", "average:(depth)")],
                predicate: "magnitude > 100")),
            ("aggregates of to-many collections per group", request([
                try expression("reports", "count:(reports.rating)"), try expression("stars", "sum:(reports.rating)"),
                try expression("best", "max:(reports.rating)"), try expression("mean", "average:(reports.rating)"),
                try expression("none", "count:(reports)"),
            ], groupBy: ["region.name"], sort: [.ascending("region.name")])),
            ("distinct values in first-occurrence order", request(["felt"], sort: [.descending("depth")], distinct: true)),
            ("distinct objects", request(["region"], sort: [.ascending("place")], distinct: true)),
            ("distinct pages", request(["region.name"], sort: [.ascending("magnitude")], distinct: true, limit: 2, offset: 1)),
            ("distinct groups", request(["felt", try expression("n", "count:(felt)")], groupBy: ["felt"], distinct: true)),
            ("grouped pages", request(["alert", try expression("n", "count:()")], groupBy: ["alert"], sort: [.ascending("alert")], limit: 2, offset: 1)),
            ("group by an expression", request([try expression("n", "count:()")], groupBy: [try expression("deep", "TERNARY(depth > 20, 'deep', 'shallow')")])),
            ("arithmetic of a per-object aggregate, grouped", request(
                ["region.name", try expression("plusOne", "add:to:(sum:(depth), 1)"), try expression("total", "sum:(depth)", .double)],
                groupBy: ["region.name"], sort: [.descending("depth")])),
            ("group by a column that is not fetched", request([try expression("n", "count:()")], groupBy: ["felt"], sort: [.ascending("felt")])),
        ]
    }

    func testDictionaryFetchesGiveTheRowsOfTheInMemoryFetch() throws {
        let database = try CompilerTestDatabase(try QueryFixture())
        for (label, request) in try requests() {
            do {
                let expected = try database.memoryDictionaries(request)
                let sql = try database.compiler.selectDictionaries(request).query
                XCTAssertEqual(try database.dictionaries(request), expected, "\(label)\n  \(sql.sql) \(sql.bindings)")
            } catch {
                XCTFail("\(label): \(error)")
            }
        }
    }
}
