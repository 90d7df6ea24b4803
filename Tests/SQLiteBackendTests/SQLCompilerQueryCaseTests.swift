import Foundation
import XCTest
@testable import SQLiteBackend
import StoreCore
import StoreSQL
import StoreTestSupport

/// Runs every row of the shared query table through the SQL compiler against the query fixture
/// in SQLite, and checks it matches the same quakes as the in-memory evaluator (or fails with
/// the same error code).
final class SQLCompilerQueryCaseTests: XCTestCase {
    func testEveryQueryCaseMatchesTheSameQuakesInSQLite() throws {
        let fixture = try QueryFixture()
        let database = try CompilerTestDatabase(fixture)
        let names = Dictionary(uniqueKeysWithValues: fixture.ids.map { ($0.value, $0.key) })
        var matched = 0, failedAsExpected = 0, parseErrors = 0
        for testCase in QueryCases.all {
            let arguments = testCase.arguments.map { $0.value(in: fixture) }
            guard let parsed = try? StorePredicate(format: testCase.format, argumentArray: arguments) else {
                parseErrors += 1  // the parser's cases: nothing reaches a store
                continue
            }
            var request = StoreFetchRequest(entityName: "Quake", resultType: .managedObjectID)
            request.predicate = parsed.substituting(variables: testCase.variables.mapValues { $0.storeValue(in: fixture) })
            switch testCase.expected {
            case .parseError:
                XCTFail("\(testCase) parsed", line: testCase.line)
            case .evaluationError(let code):
                XCTAssertThrowsError(try database.objectIDs(request), "\(testCase)", line: testCase.line) { error in
                    XCTAssertEqual((error as? FetchError)?.code, code, "\(testCase): \(error)", line: testCase.line)
                    if (error as? FetchError)?.code == code { failedAsExpected += 1 }
                }
            case .matches(let expected):
                do {
                    let found = Set(try database.objectIDs(request).compactMap { names[$0] })
                    let sql = (try? database.compiler.selectObjects(request, columns: ["t0.Z_PK"]).sql) ?? ""
                    XCTAssertEqual(found, expected, "\(testCase)\n  SQL: \(sql)", line: testCase.line)
                    XCTAssertEqual(try database.count(request), expected.count, "\(testCase) count", line: testCase.line)
                    if found == expected { matched += 1 }
                } catch {
                    XCTFail("\(testCase): \(error)", line: testCase.line)
                }
            }
        }
        // Every case that reaches a store agrees: 318 that match quakes and 13 that fail, today.
        XCTAssertEqual(matched + failedAsExpected + parseErrors, QueryCases.all.count)
        XCTAssertGreaterThanOrEqual(matched, 318)
        XCTAssertGreaterThanOrEqual(failedAsExpected, 13)
    }
}
