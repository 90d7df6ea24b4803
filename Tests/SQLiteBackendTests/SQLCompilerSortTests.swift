import Foundation
import XCTest
@testable import SQLiteBackend
import StoreCore
import StoreSQL
import StoreTestSupport

/// Sort descriptors, limits and offsets: SQLite must order like the in-memory `SortComparator`
/// (NULL first ascending, string comparisons, ties in key order).
final class SQLCompilerSortTests: XCTestCase {
    private static let sorts: [[StoreSortDescriptor]] = [
        [.ascending("place")],
        [.descending("place")],
        [.ascending("place", comparison: .caseInsensitive)],
        [.descending("place", comparison: .caseInsensitive)],
        [.ascending("place", comparison: .localized)],
        [.ascending("place", comparison: .localizedCaseInsensitive)],
        [.descending("place", comparison: .localizedCaseInsensitive)],
        [.ascending("magnitude")],
        [.descending("magnitude")],
        [.ascending("time")],
        [.descending("time")],
        [.ascending("alert", comparison: .caseInsensitive)],
        [.ascending("felt"), .descending("depth")],
        [.ascending("region.name"), .descending("magnitude")],
        [.descending("region.name", comparison: .caseInsensitive), .ascending("place")],
        [.descending("reports.@count"), .ascending("place")],
        [.ascending("reports.@avg.rating")],
        [.ascending("region")],
        [.ascending("reports"), .descending("depth")],
        [.ascending("code"), .ascending("alert")],
    ]

    private static let pages: [(limit: Int, offset: Int)] = [(0, 0), (2, 0), (2, 1), (0, 3), (1, 4), (3, 7)]

    func testSortsLimitsAndOffsetsOrderLikeTheInMemoryComparator() throws {
        let database = try CompilerTestDatabase(try QueryFixture())
        for sort in Self.sorts {
            for page in Self.pages {
                for predicate in [nil, "magnitude > 1 OR magnitude == nil"] as [StorePredicate?] {
                    var request = StoreFetchRequest(entityName: "Quake")
                    request.predicate = predicate
                    request.sortDescriptors = sort
                    request.fetchLimit = page.limit
                    request.fetchOffset = page.offset
                    let label = "\(sort.map { "\($0.keyPath) \($0.ascending) \($0.comparison)" }) \(page)"
                    let expected = try database.memoryObjectIDs(request)
                    XCTAssertEqual(try database.objectIDs(request), expected, label)
                    XCTAssertEqual(try database.count(request), expected.count, label)
                }
            }
        }
    }

    func testNullsSortFirstAscendingAndLastDescending() throws {
        let fixture = try QueryFixture()
        let database = try CompilerTestDatabase(fixture)
        var request = StoreFetchRequest(entityName: "Quake")
        request.sortDescriptors = [.ascending("magnitude")]
        XCTAssertEqual(try database.objectIDs(request).first, fixture.ids["q5"])
        request.sortDescriptors = [.descending("magnitude")]
        XCTAssertEqual(try database.objectIDs(request).last, fixture.ids["q5"])
        XCTAssertEqual(try database.objectIDs(request).first, fixture.ids["q1"])
    }

    func testCaseInsensitiveSortIgnoresCaseWhereTheDefaultDoesNot() throws {
        let fixture = try QueryFixture()
        let database = try CompilerTestDatabase(fixture)
        var request = StoreFetchRequest(entityName: "Quake")
        request.predicate = "place != nil"
        request.sortDescriptors = [.ascending("place")]
        // Code-point order: upper case before lower case.
        XCTAssertEqual(try database.objectIDs(request).last, fixture.ids["q4"])
        request.sortDescriptors = [.ascending("place", comparison: .caseInsensitive)]
        let names = Dictionary(uniqueKeysWithValues: fixture.ids.map { ($0.value, $0.key) })
        // Foundation's caseInsensitiveCompare, as in memory: "é" sorts as "e", before "i".
        XCTAssertEqual(try database.objectIDs(request).compactMap { names[$0] }, ["q2", "q4", "q3", "q1"])
        let sql = try database.compiler.selectObjects(request, columns: ["t0.Z_PK"]).sql
        XCTAssertTrue(sql.contains("COLLATE STOWAGE_CASE_INSENSITIVE ASC, t0.Z_PK"), sql)
    }
}
