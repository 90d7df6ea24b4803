import Foundation
import StoreCore
import XCTest

/// Requests of one shape — the same structure, key paths, operators, sort, limit and entity —
/// with different constants, one after another on one store: each must give its own results.
/// SQL stores reuse a shape's compiled SQL with the new constants bound (docs/architecture.md,
/// "Compiled SQL by shape"); constants that change the SQL (NULL or not, how many items an `IN`
/// list has, which constants are equal, a number's kind, string options, object IDs) must not
/// reuse another request's SQL. Run on the query fixture (``QueryFixture``).
struct QueryShapeSuite {
    let kit: StoreTestKit

    /// One request and the quakes it must return (in order when `ordered`).
    private struct Step {
        var predicate: StorePredicate?
        var sort: [StoreSortDescriptor] = []
        var limit = 0
        var offset = 0
        var expected: [String]
        var ordered = false
        var line: UInt
    }

    private static func compare(
        _ key: String, _ op: StoreComparison.Operator, _ value: StoreValue, modifier: StoreComparison.Modifier = .direct,
        options: StoreComparison.Options = []
    ) -> StorePredicate {
        .comparison(StoreComparison(.keyPath(key), op, .constant(value), modifier: modifier, options: options))
    }

    private static func list(_ key: String, _ op: StoreComparison.Operator, _ values: [StoreValue]) -> StorePredicate {
        .comparison(StoreComparison(.keyPath(key), op, .aggregate(values.map(StoreExpression.constant))))
    }

    private static func date(_ seconds: Double) -> StoreValue { .date(Date(timeIntervalSinceReferenceDate: seconds)) }

    /// The steps, in the order they run: each group repeats a shape with other constants, or
    /// follows it with a request that looks alike but must compile differently.
    private func steps(_ fixture: QueryFixture) -> [Step] {
        typealias S = Step
        func c(
            _ key: String, _ op: StoreComparison.Operator, _ value: StoreValue, modifier: StoreComparison.Modifier = .direct,
            options: StoreComparison.Options = []
        ) -> StorePredicate {
            Self.compare(key, op, value, modifier: modifier, options: options)
        }
        func l(_ key: String, _ op: StoreComparison.Operator, _ values: [StoreValue]) -> StorePredicate { Self.list(key, op, values) }
        let ca = fixture.ids["ca"].map(StoreValue.objectID) ?? .null, ak = fixture.ids["ak"].map(StoreValue.objectID) ?? .null
        let p1 = fixture.ids["p1"].map(StoreValue.objectID) ?? .null
        return [
            // Doubles, integers, dates, booleans: the same shape, other values.
            S(predicate: c("magnitude", .greaterThan, .double(4.0)), expected: ["q1", "q2", "q3"], line: #line),
            S(predicate: c("magnitude", .greaterThan, .double(5.0)), expected: ["q1"], line: #line),
            S(predicate: c("depth", .greaterThan, .integer(10)), expected: ["q2", "q4"], line: #line),
            S(predicate: c("depth", .greaterThan, .integer(100)), expected: ["q4"], line: #line),
            S(predicate: .and([c("magnitude", .greaterThan, .double(2.0)), c("depth", .lessThan, .integer(50))]), expected: ["q1", "q2", "q3"], line: #line),
            S(predicate: .and([c("magnitude", .greaterThan, .double(6.0)), c("depth", .lessThan, .integer(20))]), expected: ["q1"], line: #line),
            S(predicate: c("time", .greaterThan, Self.date(1500)), expected: ["q2", "q3"], line: #line),
            S(predicate: c("time", .greaterThan, Self.date(2500)), expected: ["q3"], line: #line),
            S(predicate: c("felt", .equalTo, .boolean(true)), expected: ["q1", "q3"], line: #line),
            S(predicate: c("felt", .equalTo, .boolean(false)), expected: ["q2", "q4"], line: #line),
            // A number's kind: an integer and a double of one key path.
            S(predicate: c("magnitude", .greaterThan, .integer(5)), expected: ["q1"], line: #line),
            S(predicate: c("magnitude", .greaterThan, .double(4.5)), expected: ["q1", "q3"], line: #line),
            // A date against a number is never ordered; against a date it is.
            S(predicate: c("time", .lessThan, .integer(5000)), expected: [], line: #line),
            S(predicate: c("time", .lessThan, Self.date(1500)), expected: ["q1", "q5"], line: #line),
            // NULL or not.
            S(predicate: c("alert", .equalTo, .null), expected: ["q2", "q5"], line: #line),
            S(predicate: c("alert", .equalTo, .string("red")), expected: ["q1"], line: #line),
            S(predicate: c("alert", .equalTo, .null), expected: ["q2", "q5"], line: #line),
            S(predicate: c("alert", .notEqualTo, .null), expected: ["q1", "q3", "q4"], line: #line),
            S(predicate: c("alert", .notEqualTo, .string("red")), expected: ["q2", "q3", "q4", "q5"], line: #line),
            S(predicate: c("magnitude", .lessThan, .null), expected: [], line: #line),
            S(predicate: c("magnitude", .lessThan, .double(3)), expected: ["q4"], line: #line),
            // Equal constants are bound once: which ones are equal changes the SQL.
            S(predicate: .or([c("depth", .equalTo, .integer(10)), c("depth", .equalTo, .integer(10))]), expected: ["q1"], line: #line),
            S(predicate: .or([c("depth", .equalTo, .integer(10)), c("depth", .equalTo, .integer(35))]), expected: ["q1", "q2"], line: #line),
            S(predicate: .or([c("depth", .equalTo, .integer(0)), c("depth", .equalTo, .integer(0))]), expected: ["q3"], line: #line),
            S(predicate: .or([c("depth", .equalTo, .integer(120)), c("depth", .equalTo, .integer(0))]), expected: ["q3", "q4"], line: #line),
            // A boolean and an integer bound as the same number.
            S(predicate: .or([c("felt", .equalTo, .boolean(true)), c("depth", .equalTo, .integer(1))]), expected: ["q1", "q3"], line: #line),
            S(predicate: .or([c("felt", .equalTo, .boolean(true)), c("depth", .equalTo, .integer(35))]), expected: ["q1", "q2", "q3"], line: #line),
            S(predicate: .or([c("felt", .equalTo, .boolean(false)), c("depth", .equalTo, .integer(0))]), expected: ["q2", "q3", "q4"], line: #line),
            // IN lists of other lengths, with and without NULL, with a repeated item.
            S(predicate: l("code", .in, [.string("ak0191")]), expected: ["q2"], line: #line),
            S(predicate: l("code", .in, [.string("ci0001")]), expected: ["q4"], line: #line),
            S(predicate: l("code", .in, [.string("ak0191"), .string("ci0001")]), expected: ["q2", "q4"], line: #line),
            S(predicate: l("code", .in, [.string("ci38457511"), .string("x"), .string("ci0001")]), expected: ["q1", "q4"], line: #line),
            S(predicate: l("code", .in, [.string("ak0191"), .null]), expected: ["q2", "q3"], line: #line),
            S(predicate: l("code", .in, [.string("ak0191"), .string("ak0191")]), expected: ["q2"], line: #line),
            S(predicate: l("code", .in, [.string("ak0191"), .string("")]), expected: ["q2", "q5"], line: #line),
            S(predicate: l("depth", .in, [.integer(10), .integer(35)]), expected: ["q1", "q2"], line: #line),
            // BETWEEN.
            S(predicate: l("magnitude", .between, [.double(4), .double(5)]), expected: ["q2", "q3"], line: #line),
            S(predicate: l("magnitude", .between, [.double(5), .double(7)]), expected: ["q1", "q3"], line: #line),
            // ANY over a to-many.
            S(predicate: c("reports.rating", .greaterThan, .integer(4), modifier: .any), expected: ["q1"], line: #line),
            S(predicate: c("reports.rating", .greaterThan, .integer(1), modifier: .any), expected: ["q1", "q4"], line: #line),
            // String options and string operators (their constants are rewritten).
            S(predicate: c("place", .beginsWith, .string("ridge"), options: .caseInsensitive), expected: ["q1"], line: #line),
            S(predicate: c("place", .beginsWith, .string("CAL"), options: .caseInsensitive), expected: ["q4"], line: #line),
            S(predicate: c("place", .beginsWith, .string(""), options: .caseInsensitive), expected: ["q1", "q2", "q3", "q4"], line: #line),
            S(predicate: c("place", .equalTo, .string("CALEXICO"), options: .caseInsensitive), expected: ["q4"], line: #line),
            S(predicate: c("place", .equalTo, .string("anchorage, alaska"), options: .caseInsensitive), expected: ["q2"], line: #line),
            S(predicate: c("place", .equalTo, .string("calexico")), expected: ["q4"], line: #line),
            S(predicate: c("place", .equalTo, .string("CALEXICO")), expected: [], line: #line),
            // Object IDs, of the right entity and of another.
            S(predicate: c("region", .equalTo, ca), expected: ["q1", "q4"], line: #line),
            S(predicate: c("region", .equalTo, ak), expected: ["q2", "q5"], line: #line),
            S(predicate: c("region", .equalTo, p1), expected: [], line: #line),
            S(predicate: c("region", .equalTo, .null), expected: ["q3"], line: #line),
            // Limits and offsets.
            S(sort: [.descending("magnitude")], limit: 2, expected: ["q1", "q3"], ordered: true, line: #line),
            S(sort: [.descending("magnitude")], limit: 2, offset: 2, expected: ["q2", "q4"], ordered: true, line: #line),
            S(sort: [.descending("magnitude")], limit: 3, offset: 1, expected: ["q3", "q2", "q4"], ordered: true, line: #line),
            S(sort: [.descending("magnitude")], offset: 3, expected: ["q4", "q5"], ordered: true, line: #line),
            S(sort: [.descending("magnitude")], offset: 4, expected: ["q5"], ordered: true, line: #line),
            // A constant equal to the limit (bound once) and then not.
            S(predicate: c("depth", .greaterThanOrEqualTo, .integer(2)), sort: [.ascending("depth")], limit: 2, expected: ["q1", "q2"], ordered: true, line: #line),
            S(predicate: c("depth", .greaterThanOrEqualTo, .integer(35)), sort: [.ascending("depth")], limit: 2, expected: ["q2", "q4"], ordered: true, line: #line),
            S(predicate: c("depth", .greaterThanOrEqualTo, .integer(3)), sort: [.ascending("depth")], limit: 3, expected: ["q1", "q2", "q4"], ordered: true, line: #line),
            S(predicate: c("depth", .greaterThanOrEqualTo, .integer(0)), sort: [.ascending("depth")], limit: 1, offset: 1, expected: ["q1"], ordered: true, line: #line),
            S(predicate: c("depth", .greaterThanOrEqualTo, .integer(1)), sort: [.ascending("depth")], limit: 1, offset: 1, expected: ["q2"], ordered: true, line: #line),
            S(predicate: c("depth", .greaterThanOrEqualTo, .integer(1)), sort: [.ascending("depth")], limit: 1, offset: 0, expected: ["q1"], ordered: true, line: #line),
        ]
    }

    /// Each step fetched as object IDs, as objects (their magnitudes checked) and as a count,
    /// one after another on one store — then all again in reverse, so that every request runs
    /// after the others of its shape.
    func testRequestsOfOneShapeWithOtherConstantsGiveTheirOwnResults() {
        kit.check(#function) {
            let stack = try kit.makeStack(model: QueryFixture.makeModel(), name: "Shapes")
            let fixture = try QueryCaseSuite.load(into: stack.store)
            let names = Dictionary(uniqueKeysWithValues: fixture.ids.map { ($0.value, $0.key) })
            let steps = steps(fixture)
            for step in steps + steps.reversed() {
                try check(step, on: stack.store, fixture: fixture, names: names)
            }
        }
    }

    private func check(_ step: Step, on store: any PersistentStore, fixture: QueryFixture, names: [ManagedObjectID: String]) throws {
        let file: StaticString = #filePath
        var request = StoreFetchRequest(entityName: "Quake", resultType: .managedObjectID)
        request.predicate = step.predicate
        request.sortDescriptors = step.sort
        request.fetchLimit = step.limit
        request.fetchOffset = step.offset
        let label = "\(kit): \(step.predicate.map { "\($0)" } ?? "all") limit \(step.limit) offset \(step.offset)"
        guard case .objectIDs(let ids) = try store.execute(request) else {
            return XCTFail("\(label): no IDs", file: file, line: step.line)
        }
        let found = ids.map { names[$0] ?? "?" }
        if step.ordered {
            XCTAssertEqual(found, step.expected, label, file: file, line: step.line)
        } else {
            XCTAssertEqual(Set(found), Set(step.expected), label, file: file, line: step.line)
        }
        request.resultType = .managedObject
        guard case .snapshots(let snapshots) = try store.execute(request) else {
            return XCTFail("\(label): no snapshots", file: file, line: step.line)
        }
        let objects = snapshots.map { names[$0.objectID] ?? "?" }
        XCTAssertEqual(step.ordered ? objects : objects.sorted(), step.ordered ? step.expected : step.expected.sorted(), "\(label), objects", file: file, line: step.line)
        for snapshot in snapshots {
            XCTAssertEqual(snapshot["magnitude"], fixture.snapshots[snapshot.objectID]?["magnitude"], "\(label), magnitude", file: file, line: step.line)
        }
        request.resultType = .count
        guard case .count(let count) = try store.execute(request) else {
            return XCTFail("\(label): no count", file: file, line: step.line)
        }
        XCTAssertEqual(count, step.expected.count, "\(label), count", file: file, line: step.line)
    }

    func run() {
        testRequestsOfOneShapeWithOtherConstantsGiveTheirOwnResults()
    }
}
