import Foundation
import StoreCore
import XCTest

/// Watching data on every store type: fetched results controllers, live queries, query
/// generations, inaccessible faults and undo.
struct ObservationSuite {
    let kit: StoreTestKit

    /// Runs one check of the suite on the kit's store, failures naming the store and the check.
    func run(_ name: String = #function, _ body: (StoreTestKit) throws -> Void) {
        kit.check(name) { try body(kit) }
    }

    func run() {
        testControllerReportsExactlyWhatChanged()
        testControllerReportsWhatItCannotFollow()
        testLiveQueryYieldsOneResultPerRelevantSave()
        testInaccessibleFaultsAndStaleness()
        testAFaultKeepsItsFetchedRowWithinTheStalenessInterval()
        testRefetchKeepsHeldValuesAndReadsTheRest()
        testDetectConflictsChecksAnUnchangedObject()
        testUndoRestoresDeletedObjectsWithCascadesAndInverses()
        testUndoOfASavedChangeKeepsTheSavedValuesCommitted()
        testPinnedGenerationReadsOneCommittedState()
    }
}
