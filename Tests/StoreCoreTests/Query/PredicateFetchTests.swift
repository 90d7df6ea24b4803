import XCTest
@testable import StoreCore
import StoreTestSupport

/// Parsed and built predicates run through the atomic engine's fetch, as the in-memory store does.
final class PredicateFetchTests: XCTestCase {
    private func fetch(_ fixture: QueryFixture, _ request: StoreFetchRequest) throws -> StoreFetchResult {
        var graph = SnapshotGraph(model: fixture.model)
        graph.load(Array(fixture.snapshots.values))
        return try graph.execute(request)
    }

    private func names(_ fixture: QueryFixture, _ result: StoreFetchResult) -> [String] {
        let byID = Dictionary(uniqueKeysWithValues: fixture.ids.map { ($1, $0) })
        switch result {
        case .objectIDs(let ids): return ids.compactMap { byID[$0] }
        case .snapshots(let snapshots): return snapshots.compactMap { byID[$0.objectID] }
        default: return []
        }
    }

    func testContainsCaseInsensitiveSortedByTimeDescending() throws {
        let fixture = try QueryFixture()
        var request = StoreFetchRequest(entityName: "Quake", resultType: .managedObjectID)
        request.predicate = try .format("place CONTAINS[c] %@", "CAL")
        request.sortDescriptors = [.descending("time")]
        XCTAssertEqual(names(fixture, try fetch(fixture, request)), ["q1", "q4"])
    }

    func testBetweenOnTwoAttributesWithTheBuilder() throws {
        let fixture = try QueryFixture()
        var request = StoreFetchRequest(entityName: "Quake")
        request.predicate = .key("magnitude").between(4.0, 7.0) && .key("depth").between(0, 40)
        request.sortDescriptors = [.ascending("magnitude")]
        XCTAssertEqual(names(fixture, try fetch(fixture, request)), ["q2", "q3", "q1"])
    }

    func testCountResultWithACollectionOperator() throws {
        let fixture = try QueryFixture()
        var request = StoreFetchRequest(entityName: "Quake", resultType: .count)
        request.predicate = "reports.@count > 0"
        guard case .count(let count) = try fetch(fixture, request) else { return XCTFail("expected a count") }
        XCTAssertEqual(count, 3)
    }

    func testTemplateWithVariablesAndSubquery() throws {
        let fixture = try QueryFixture()
        let template = try StorePredicate(format: "SUBQUERY(reports, $r, $r.author ==[c] $who).@count > 0 AND time < $before")
        var request = StoreFetchRequest(entityName: "Quake", resultType: .managedObjectID)
        request.predicate = template.substituting(variables: ["who": "ADA", "before": Date(timeIntervalSinceReferenceDate: 1500)])
        XCTAssertEqual(names(fixture, try fetch(fixture, request)), ["q1"])
    }

    func testUnparsableLiteralMakesTheFetchThrow() throws {
        let fixture = try QueryFixture()
        var request = StoreFetchRequest(entityName: "Quake")
        request.predicate = "magnitude >"
        XCTAssertThrowsError(try fetch(fixture, request)) { error in
            XCTAssertEqual((error as? FetchError)?.code, .invalidPredicate)
        }
    }
}
