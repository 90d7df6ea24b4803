import Foundation
import XCTest
@testable import SQLiteBackend
import StoreCore
import StoreSQL
import StoreTestSupport

/// Predicates beyond the shared table — nested collections, NULL to-ones, mixed kinds,
/// non-constant aggregates and functions — run both in SQLite and in memory on the query
/// fixture, which must agree.
final class SQLCompilerPredicateTests: XCTestCase {
    private static let predicates: [String] = [
        // Through a to-one into to-manys, flattened and per element.
        "region.quakes.@sum.depth > 100",
        "region.quakes.@avg.reports.@count > 1",
        "region.quakes.@max.reports.@count == 3",
        "ANY region.quakes.reports.author == 'ada'",
        "region.quakes.reports.@count == 5",
        "reports.quake.reports.@count == 9",
        "region.quakes.depth CONTAINS 120",
        "120 IN region.quakes.depth",
        "SUBQUERY(region.quakes, $q, $q.magnitude > 4).@count == 1",
        "SUBQUERY(reports.rating, $x, $x > 2).@count == 3",
        "SUBQUERY(reports, $r, $r.rating > 1 AND $r.author BEGINSWITH 'a').@count == 1",
        "SUBQUERY(reports, $r, ANY $r.quake.reports.author == 'bob').@count > 0",
        "SUBQUERY(reports, $r, $r.quake == SELF).@count > 0",
        "SUBQUERY(region.quakes, $q, SUBQUERY($q.reports, $r, $r.rating >= 4).@count > 0).@count > 0",
        // Aggregate functions that read objects.
        "median:(reports.rating) == 4",
        "median:(reports.rating) == 2",
        "median:(region.quakes.depth) == 65",
        "stddev:(reports.rating) == 0",
        "stddev:(region.quakes.depth) == 55",
        "mode:(reports.rating) == {2}",
        "ANY mode:(reports.rating) == 2",
        "count:(reports.rating) == 3",
        "sum:(depth, 5) == 15",
        "max:(depth, magnitude) > 100",
        "min:(depth, magnitude) < 1",
        "count:(depth, magnitude) == 2",
        "average:(depth) == 10",
        "sum:(depth) == 0",
        "reports.@distinctUnionOfObjects.author CONTAINS 'ada'",
        "reports.@max.rating > reports.@min.rating",
        "reports.@sum.rating > depth",
        // NULL to-ones and collections.
        "region.quakes == nil",
        "ALL region.quakes.depth > 5",
        "ALL region.quakes.depth != nil",
        "ANY region.quakes.depth == nil",
        "NONE region.quakes.depth == nil",
        "ALL region.quakes.place != 'x'",
        "region.quakes != nil",
        "NOT region.name == 'Alaska'",
        "region.name != 'Alaska'",
        "region.name < 'B'",
        "NOT region.name < 'B'",
        "reports == nil",
        "reports.rating == 3",
        "reports.rating != 3",
        "reports.rating > 3",
        "TERNARY(region == nil, 'none', region.name) == 'none'",
        // Kinds the evaluator never compares.
        "depth == '10'",
        "depth IN {'10', 35}",
        "alert IN {'red', nil}",
        "alert IN {'red', 5}",
        "place > 5",
        "place != 5",
        "time == 1000",
        "time != 1000",
        "time < 1000",
        "felt == 'YES'",
        "region == 12",
        "region != 'x'",
        // Functions of values known when the query runs.
        "CAST(magnitude, 'NSString') == '6.5'",
        "CAST(code, 'NSNumber') == nil",
        "CAST(time, 'NSNumber') > 1500",
        "CAST(depth, 'NSDate') > CAST(50, 'NSDate')",
        "CAST(felt, 'NSNumber') == 1",
        "modulus:by:(magnitude, 2) > 0.4",
        "modulus:by:(depth, 0) == nil",
        "bitwiseXor:with:(depth, 3) == 9",
        "rightshift:by:(depth, 1) == 5",
        "leftshift:by:(depth, 70) == 0",
        "rightshift:by:(-depth, 100) == -1",
        "onesComplement:(depth) == -11",
        "abs:(magnitude - 5) < 1",
        "exp:(depth) > 1",
        "lowercase:(depth) == nil",
        "uppercase:(region.name) BEGINSWITH 'AL'",
        "divide:by:(depth, magnitude) > 5",
        "depth / 0 > 0",
        "-depth / 0 < 0",
        "now() - time > 0",
        "time + 0 == time",
        "time - time == 0",
        "CAST(time, 'NSDate') == time",
        "random() < 2",
        "{depth, magnitude} == {10, 6.5}",
        "ALL {depth, 5} >= 5",
        "ANY {depth, magnitude} > 100",
        "depth IN {magnitude, 10, 35}",
        // Strings against values known when the query runs.
        "place ENDSWITH place",
        "place BEGINSWITH code",
        "place CONTAINS code",
        "code CONTAINS code",
        "code BEGINSWITH code",
        "code ENDSWITH ''",
        "code CONTAINS ''",
        "code BEGINSWITH ''",
        "alert LIKE[c] code",
        "place CONTAINS[cd] 'É'",
        "place MATCHES[c] '.*island'",
        "ANY reports.text MATCHES '.*[ü].*'",
        // Mixed.
        "region.name ==[c] 'alaska' OR reports.@count > 2",
        "ALL reports.author != 'nobody'",
        "NONE reports.rating > 4",
        "ANY reports.rating < depth",
        "NOT (ANY reports.rating < depth)",
        "ANY reports.quake.region.quakes.depth == 120",
        "magnitude > 4 AND indexed:by:(depth, 'nope') < 50",
        "indexed:by:(depth, 'nope') BETWEEN {0, 40}",
    ]

    func testPredicatesMatchTheSameObjectsAsInMemory() throws {
        let fixture = try QueryFixture()
        let database = try CompilerTestDatabase(fixture)
        for format in Self.predicates {
            var request = StoreFetchRequest(entityName: "Quake")
            request.predicate = try StorePredicate(format: format)
            do {
                let expected = try database.memoryObjectIDs(request)
                let sql = try database.compiler.selectObjects(request, columns: ["t0.Z_PK"])
                // Unsorted fetches come in no particular order.
                XCTAssertEqual(Set(try database.objectIDs(request)), Set(expected), "\(format)\n  \(sql.sql) \(sql.bindings)")
            } catch {
                XCTFail("\(format): \(error)")
            }
        }
    }

    func testObjectIDArgumentsMatchTheSameObjectsAsInMemory() throws {
        let fixture = try QueryFixture()
        let database = try CompilerTestDatabase(fixture)
        func id(_ name: String) -> ManagedObjectID { fixture.ids[name] ?? ManagedObjectID(entityName: "Quake", storeIdentifier: "?", primaryKey: 999) }
        let cases: [(String, [Any])] = [
            ("SELF IN %@", [[id("p1"), id("q2")]]),
            ("SELF == %@", [id("p1")]),
            ("SELF != %@", [id("p1")]),
            ("region IN %@", [[id("ca"), StoreValue.null]]),
            ("region IN %@", [[id("q1")]]),
            ("ANY reports IN %@", [[id("p1"), id("p4")]]),
            ("%@ IN reports.quake", [id("q1")]),
            ("region.quakes CONTAINS %@", [id("q4")]),
            ("ALL reports != %@", [id("p5")]),
            ("region == %@ OR SELF == %@", [id("ak"), id("q3")]),
            ("SUBQUERY(reports, $r, $r == %@).@count == 1", [id("p2")]),
            ("reports.@count == %@", [3]),
            ("place == %@", ["it's 100% \"real\" _*?"]),
        ]
        for (format, arguments) in cases {
            var request = StoreFetchRequest(entityName: "Quake")
            request.predicate = try StorePredicate(format: format, argumentArray: arguments)
            XCTAssertEqual(Set(try database.objectIDs(request)), Set(try database.memoryObjectIDs(request)), format)
        }
    }
}
