import Foundation
import StoreTestSupport
import XCTest

/// The shared suite (``StoreTestKit``, the `StowageTestKit` product) on every store type:
/// in-memory, SQLite, XML, binary and a user-written JSON format on the atomic engine. A failure
/// names the store and the check.
final class BackendConformanceTests: XCTestCase {
    func testConformance() {
        for backend in StoreBackend.all { backend.kit.checkConformance() }
    }

    func testTheSharedQueryTable() {
        for backend in StoreBackend.all { backend.kit.checkQueryCases() }
    }

    func testTypedPredicatesMatchTheirFormatStringTwins() {
        for backend in StoreBackend.all { backend.kit.checkTypedPredicates() }
    }

    func testConstraintsAndValidation() {
        for backend in StoreBackend.all { backend.kit.checkConstraints() }
    }

    func testConstraintConflictsAreResolvedByTheMergePolicy() {
        for backend in StoreBackend.all { backend.kit.checkConstraintConflicts() }
    }

    func testBatchedFetchesGiveEveryObjectInOrderAndLetGoOfFinishedBatches() {
        for backend in StoreBackend.all { backend.kit.checkBatchedFetching() }
    }

    func testBatchRequests() {
        for backend in StoreBackend.all { backend.kit.checkBatchRequests() }
    }

    func testPersistentHistory() {
        for backend in StoreBackend.all { backend.kit.checkHistory() }
    }

    func testObservation() {
        for backend in StoreBackend.all { backend.kit.checkObservation() }
    }

    func testMergePolicies() {
        for backend in StoreBackend.all { backend.kit.checkMergePolicies() }
    }

    func testTransientRelationshipsAreHeldInMemoryAndNeverWritten() {
        for backend in StoreBackend.all { backend.kit.checkTransientProperties() }
    }
}
