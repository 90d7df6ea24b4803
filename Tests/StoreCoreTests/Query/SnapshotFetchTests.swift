import Foundation
import XCTest

@testable import StoreCore

/// Fetches run by the atomic stores' graph give what filtering with the tree walker, sorting by
/// the keys it reads, and applying offset and limit give — for every result type, with and
/// without sub-entities.
final class SnapshotFetchTests: XCTestCase {
    /// The result the tree walker and the by-name sort keys give for `request`.
    private func expected(_ request: StoreFetchRequest, _ fixture: CompiledEvaluatorFixture) throws -> [StoreSnapshot] {
        let entity = try fixture.model.entity(named: request.entityName)
        let names = request.includesSubentities ? entity.entityAndDescendantNames : [entity.name]
        var rows = try fixture.graph.allSnapshots.filter { snapshot in
            guard names.contains(snapshot.objectID.entityName) else { return false }
            guard let predicate = request.predicate else { return true }
            return try PredicateEvaluator().evaluate(predicate, on: fixture.source(snapshot))
        }
        let comparator = SortComparator(request.sortDescriptors)
        rows = comparator.sort(rows, keys: try rows.map { try comparator.keys(for: fixture.source($0)) })
        if request.fetchOffset > 0 { rows = Array(rows.dropFirst(request.fetchOffset)) }
        if request.fetchLimit > 0 { rows = Array(rows.prefix(request.fetchLimit)) }
        return rows
    }

    func testFetchesMatchTheTreeWalkerForEveryResultType() throws {
        let fixture = try CompiledEvaluatorFixture()
        let predicates: [String?] = [
            nil, "i > 1", "s CONTAINS[c] 'a' OR d BETWEEN {1, 3}", "owner.name == 'Ada' OR ANY tags.name == 'Blue'", "i IN {1, 2, 3}",
            "s == nil", "FALSEPREDICATE",
        ]
        let sorts: [[StoreSortDescriptor]] = [
            [], [.ascending("i")], [.descending("d"), .ascending("s")], [.ascending("s", comparison: .caseInsensitive)],
            [.ascending("owner.name"), .descending("i")], [.ascending("t"), .ascending("b"), .descending("n")],
        ]
        var checked = 0
        for format in predicates {
            for sort in sorts {
                for (entityName, subentities) in [("Item", true), ("Item", false), ("Media", true)] {
                    for (offset, limit) in [(0, 0), (2, 3), (0, 1), (40, 0)] {
                        var request = StoreFetchRequest(entityName: entityName, resultType: .managedObject)
                        request.predicate = try format.map { try StorePredicate(format: $0) }
                        request.sortDescriptors = sort
                        request.includesSubentities = subentities
                        request.fetchOffset = offset
                        request.fetchLimit = limit
                        let want = try expected(request, fixture)
                        let context = "\(format ?? "all") \(sort) \(entityName) \(subentities) \(offset)/\(limit)"
                        guard case .snapshots(let snapshots) = try fixture.graph.execute(request) else { return XCTFail(context) }
                        XCTAssertEqual(snapshots.map(\.objectID), want.map(\.objectID), context)
                        request.resultType = .managedObjectID
                        guard case .objectIDs(let ids) = try fixture.graph.execute(request) else { return XCTFail(context) }
                        XCTAssertEqual(ids, want.map(\.objectID), context)
                        request.resultType = .count
                        guard case .count(let count) = try fixture.graph.execute(request) else { return XCTFail(context) }
                        XCTAssertEqual(count, want.count, context)
                        checked += 1
                    }
                }
            }
        }
        XCTAssertEqual(checked, predicates.count * sorts.count * 3 * 4)
    }

    func testSortingAndCountingRaiseTheTreeWalkersErrors() throws {
        let fixture = try CompiledEvaluatorFixture()
        var request = StoreFetchRequest(entityName: "Item", resultType: .count)
        request.predicate = try StorePredicate(format: "i > 1 AND nothing == 1")
        XCTAssertThrowsError(try fixture.graph.execute(request)) { error in
            XCTAssertEqual((error as? FetchError)?.code, .invalidKeyPath)
        }
        request.predicate = nil
        request.resultType = .managedObject
        request.sortDescriptors = [.ascending("nothing")]
        XCTAssertThrowsError(try fixture.graph.execute(request)) { error in
            XCTAssertEqual((error as? FetchError)?.code, .invalidKeyPath)
        }
    }

    func testDeletedRowsAreSkipped() throws {
        var graph = try CompiledEvaluatorFixture().graph
        guard let victim = graph.allSnapshots.first(where: { $0.objectID.entityName == "Item" && $0["i"] == .integer(2) }) else {
            return XCTFail("no item with i = 2")
        }
        var changes = StoreChangeSet()
        changes.deleted = [victim]
        try graph.apply(changes)
        var request = StoreFetchRequest(entityName: "Item", resultType: .managedObjectID)
        request.predicate = try StorePredicate(format: "i == 2")
        guard case .objectIDs(let ids) = try graph.execute(request) else { return XCTFail("no IDs") }
        XCTAssertFalse(ids.contains(victim.objectID))
        XCTAssertFalse(ids.isEmpty, "other items have i = 2")
    }
}
