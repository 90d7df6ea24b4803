import XCTest
@testable import StoreCore
import StoreTestSupport

/// Runs the shared query table against snapshots of ``QueryFixture``.
final class QueryCaseTableTests: XCTestCase {
    func testTableHasAtLeastThreeHundredCases() {
        XCTAssertGreaterThanOrEqual(QueryCases.all.count, 300)
    }

    func testEveryCaseGivesItsExpectedResultOnEveryQuake() throws {
        let fixture = try QueryFixture()
        var evaluations = 0
        for testCase in QueryCases.all {
            let arguments = testCase.arguments.map { $0.value(in: fixture) }
            let parsed: StorePredicate
            do {
                parsed = try StorePredicate(format: testCase.format, argumentArray: arguments)
            } catch {
                if case .parseError(let code) = testCase.expected {
                    XCTAssertEqual(error.code, code, "\(testCase): \(error)", line: testCase.line)
                } else {
                    XCTFail("\(testCase) does not parse: \(error)", line: testCase.line)
                }
                continue
            }
            let predicate = parsed.substituting(variables: testCase.variables.mapValues { $0.storeValue(in: fixture) })
            switch testCase.expected {
            case .parseError(let code):
                XCTFail("\(testCase) parsed as \(parsed), expected \(code)", line: testCase.line)
            case .evaluationError(let code):
                guard let source = fixture.source("q1") else { return XCTFail("fixture has no q1") }
                XCTAssertThrowsError(try PredicateEvaluator().evaluate(predicate, on: source), "\(testCase)", line: testCase.line) { error in
                    XCTAssertEqual((error as? FetchError)?.code, code, "\(testCase): \(error)", line: testCase.line)
                }
            case .matches(let expected):
                var matched: Set<String> = []
                for name in QueryFixture.quakeNames {
                    guard let source = fixture.source(name) else { return XCTFail("fixture has no \(name)") }
                    do {
                        if try PredicateEvaluator().evaluate(predicate, on: source) { matched.insert(name) }
                        evaluations += 1
                    } catch {
                        XCTFail("\(testCase) on \(name): \(error)", line: testCase.line)
                    }
                }
                XCTAssertEqual(matched, expected, "\(testCase) → \(predicate)", line: testCase.line)
            }
        }
        XCTAssertGreaterThan(evaluations, 1000)
    }

    func testEveryParsedCaseRoundTripsThroughItsDescription() throws {
        let fixture = try QueryFixture()
        var roundTrips = 0
        for testCase in QueryCases.all {
            let arguments = testCase.arguments.map { $0.value(in: fixture) }
            guard let parsed = try? StorePredicate(format: testCase.format, argumentArray: arguments) else { continue }
            let printed = parsed.description
            do {
                let again = try StorePredicate(format: printed)
                XCTAssertEqual(again, parsed, "\(testCase) printed as \(printed) → \(again)", line: testCase.line)
                XCTAssertEqual(again.description, printed, "\(testCase)", line: testCase.line)
                roundTrips += 1
            } catch {
                XCTFail("\(testCase) printed as \(printed), which does not parse: \(error)", line: testCase.line)
            }
        }
        XCTAssertGreaterThan(roundTrips, 250)
    }
}
