#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import PostgresBackend
import StoreCore
import StoreTestSupport
import XCTest

/// The shared backend suite, run on a real PostgreSQL server exactly as on SQLite.
final class PostgresSharedSuiteTests: XCTestCase {
    func testConformance() throws { try PostgresTestServer.kit().checkConformance() }
    func testQueryCases() throws { try PostgresTestServer.kit().checkQueryCases() }
    func testBatchRequests() throws { try PostgresTestServer.kit().checkBatchRequests() }
    func testHistory() throws { try PostgresTestServer.kit().checkHistory() }
    func testMergePolicies() throws { try PostgresTestServer.kit().checkMergePolicies() }
    func testObservation() throws { try PostgresTestServer.kit().checkObservation() }
    func testTypedPredicates() throws { try PostgresTestServer.kit().checkTypedPredicates() }
    func testConstraintConflicts() throws { try PostgresTestServer.kit().checkConstraintConflicts() }
    func testBatchedFetching() throws { try PostgresTestServer.kit().checkBatchedFetching() }
    func testConstraints() throws { try PostgresTestServer.kit().checkConstraints() }
    func testTransientProperties() throws { try PostgresTestServer.kit().checkTransientProperties() }
}
#endif
