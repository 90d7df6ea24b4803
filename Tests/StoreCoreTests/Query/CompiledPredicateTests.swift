import Foundation
import StoreTestSupport
import XCTest

@testable import StoreCore

/// The compiled evaluator gives the tree walker's answers — and its errors — for every
/// predicate, on every row: attributes read by index against prepared constants, and anything
/// else handed back to the tree walker.
final class CompiledPredicateTests: XCTestCase {
    private static let strings: [String] = ["ab", "AB", "a", "b", "e", "é", "É", "", "\r", "\n", "a\0", "K", "k", "ç", "*b", "?b", "a\\*", "a.*", "(", "[a-z]+", "ca", "CAL*"]
    private static let constants: [StoreValue] = [
        .null, .integer(0), .integer(1), .integer(2), .integer(-3), .integer(.max), .double(1), .double(2.5), .double(.nan),
        .double(-0.0), .double(9.2e18), .float(0.5), .decimal(Decimal(string: "2.5") ?? 2), .boolean(true), .boolean(false),
        .date(Date(timeIntervalSinceReferenceDate: 100)), .data(Data([1, 2])), .uuid(CompiledEvaluatorFixture.uuid),
    ] + strings.map(StoreValue.string)
    private static let lists: [[StoreValue]] = [
        [], [1], [1, 2], [2.5, 1], [0, true], ["ab", "Åb"], ["AB", .null], ["a", "b"], [1, 2, 3], ["E\u{301}", "ab"],
        [.date(Date(timeIntervalSinceReferenceDate: 0)), .date(Date(timeIntervalSinceReferenceDate: 150))], [.double(.nan), 1],
    ]
    private static let options: [StoreComparison.Options] = [[], .caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive]]

    /// Compares both evaluators on every item for `predicate`; returns how many rows it checked.
    @discardableResult
    private func assertAgree(_ predicate: StorePredicate, _ fixture: CompiledEvaluatorFixture, line: UInt = #line) -> Int {
        var compiled = CompiledPredicate<StoreSnapshot>(predicate, fallbackSource: { fixture.source($0) })
        var checked = 0
        for snapshot in fixture.items {
            let walked = Outcome { try PredicateEvaluator().evaluate(predicate, on: fixture.source(snapshot)) }
            let fast = Outcome { try compiled.evaluate(snapshot) }
            if walked != fast {
                XCTFail("\(predicate) on \(snapshot): tree walker \(walked), compiled \(fast)", line: line)
            }
            checked += 1
        }
        return checked
    }

    func testEveryOperatorConstantAndOptionAgreesWithTheTreeWalker() throws {
        let fixture = try CompiledEvaluatorFixture()
        var checked = 0
        for key in CompiledEvaluatorFixture.itemKeys + ["code", "isbn", "owner", "missing", "self"] {
            for op in StoreComparison.Operator.allCases {
                for constant in Self.constants {
                    let variants: [StoreComparison.Options] = constant.isString ? Self.options : [[]]
                    for options in variants {
                        checked += assertAgree(.comparison(StoreComparison(.keyPath(key), op, .constant(constant), options: options)), fixture)
                    }
                }
                for list in Self.lists {
                    for options in Self.options {
                        let items = list.map(StoreExpression.constant)
                        checked += assertAgree(.comparison(StoreComparison(.keyPath(key), op, .aggregate(items), options: options)), fixture)
                    }
                }
            }
        }
        XCTAssertGreaterThan(checked, 100_000)
    }

    func testMirroredAndTwoAttributeComparisonsAgree() throws {
        let fixture = try CompiledEvaluatorFixture()
        for op in StoreComparison.Operator.allCases {
            for options in Self.options {
                for constant in [StoreValue.integer(2), .double(2.5), .string("ab"), .null, .string("a")] {
                    assertAgree(.comparison(StoreComparison(.constant(constant), op, .keyPath("i"), options: options)), fixture)
                    assertAgree(.comparison(StoreComparison(.constant(constant), op, .keyPath("s"), options: options)), fixture)
                }
                for (left, right) in [("i", "d"), ("d", "f"), ("s", "code"), ("n", "i"), ("b", "i"), ("t", "d")] {
                    assertAgree(.comparison(StoreComparison(.keyPath(left), op, .keyPath(right), options: options)), fixture)
                }
            }
        }
    }

    func testModifiersRelationshipsAndFunctionsAgree() throws {
        let fixture = try CompiledEvaluatorFixture()
        let formats = [
            "ANY i == 2", "ALL s BEGINSWITH 'a'", "NONE d > 2", "owner.name ==[c] 'ada'", "owner == nil", "owner != nil",
            "ANY tags.name ==[cd] 'blue'", "tags.@count > 0", "SUBQUERY(tags, $t, $t.name BEGINSWITH 'r').@count == 1",
            "i + 1 > 2", "abs:(i) == 3", "s MATCHES '(' ", "s MATCHES[c] 'a.*'", "$x == 1", "SELF == nil", "self.i == 1",
            "i IN {1, d}", "i BETWEEN {1, d}", "{1, 2} CONTAINS i", "i IN 'abc'", "s IN 'abcd'", "s IN[c] 'ABCD'",
            "code == 'x'", "code ==[c] 'y'", "isbn == 'X' OR code == 'x'", "minutes > 60", "count:(tags) > 0",
            "TRUEPREDICATE", "FALSEPREDICATE", "NOT (i > 1 AND d < 3) OR s CONTAINS[c] 'A'", "(i > 1 OR d < 3) AND NOT s == nil",
            "i == 2 AND missing == 1", "FALSEPREDICATE AND missing == 1", "i == 2 OR missing == 1",
        ]
        for format in formats {
            let predicate: StorePredicate
            do {
                predicate = try StorePredicate(format: format)
            } catch {
                XCTFail("\(format) does not parse: \(error)")
                continue
            }
            assertAgree(predicate, fixture)
        }
    }

    func testRandomCombinationsAgree() throws {
        let fixture = try CompiledEvaluatorFixture()
        var random = SeededGenerator(state: 0xC0DE)
        func leaf() -> StorePredicate {
            let keys = CompiledEvaluatorFixture.itemKeys + ["code", "owner.name", "tags.name"]
            let op = StoreComparison.Operator.allCases.randomElement(using: &random) ?? .equalTo
            let constant = Self.constants.randomElement(using: &random) ?? .null
            let options = Self.options.randomElement(using: &random) ?? []
            let modifier: StoreComparison.Modifier = [.direct, .any, .all].randomElement(using: &random) ?? .direct
            return .comparison(StoreComparison(.keyPath(keys.randomElement(using: &random) ?? "i"), op, .constant(constant), modifier: modifier, options: options))
        }
        func tree(_ depth: Int) -> StorePredicate {
            guard depth > 0 else { return leaf() }
            switch random.next() % 4 {
            case 0: return .and([tree(depth - 1), tree(depth - 1)])
            case 1: return .or([tree(depth - 1), tree(depth - 1), tree(depth - 1)])
            case 2: return .not(tree(depth - 1))
            default: return leaf()
            }
        }
        for _ in 0..<500 { assertAgree(tree(3), fixture) }
    }

    /// The QueryCases table all backends run, on its own fixture.
    func testTheSharedQueryTableAgrees() throws {
        let fixture = try QueryFixture()
        var checked = 0
        for testCase in QueryCases.all {
            let arguments = testCase.arguments.map { $0.value(in: fixture) }
            guard let parsed = try? StorePredicate(format: testCase.format, argumentArray: arguments) else { continue }
            let predicate = parsed.substituting(variables: testCase.variables.mapValues { $0.storeValue(in: fixture) })
            let all = fixture.snapshots
            let bySnapshotName: (StoreSnapshot) -> any PredicateEvaluationSource = { snapshot in
                SnapshotSource(snapshot: snapshot, model: fixture.model, resolve: { all[$0] })
            }
            var compiled = CompiledPredicate<StoreSnapshot>(predicate, fallbackSource: bySnapshotName)
            for snapshot in all.values.sorted(by: { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }) {
                let walked = Outcome { try PredicateEvaluator().evaluate(predicate, on: bySnapshotName(snapshot)) }
                let fast = Outcome { try compiled.evaluate(snapshot) }
                XCTAssertEqual(walked, fast, "\(testCase) on \(snapshot.objectID)", line: testCase.line)
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 3000)
    }

    func testAttributeComparisonsNeverReadTheByNameView() throws {
        let fixture = try CompiledEvaluatorFixture()
        let counter = Counter()
        let formats = [
            "i > 1 AND d <= 2.5 AND NOT (s CONTAINS[cd] 'a')", "s BEGINSWITH[c] 'a' OR s ENDSWITH 'b' OR s LIKE[c] '?b'",
            "i BETWEEN {1, 5}", "s IN[c] {'ab', 'é'}", "t > CAST(50, 'NSDate')", "s MATCHES '[a-z]+'", "b == YES", "n < 2", "s != nil",
        ]
        for format in formats {
            var compiled = CompiledPredicate<StoreSnapshot>(try StorePredicate(format: format), fallbackSource: { snapshot in
                counter.increment()
                return fixture.source(snapshot)
            })
            for snapshot in fixture.items { _ = try? compiled.evaluate(snapshot) }
            XCTAssertEqual(counter.value, 0, format)
        }
        var throughOwner = CompiledPredicate<StoreSnapshot>(try StorePredicate(format: "i > 1 AND owner.name == 'Ada'"), fallbackSource: { snapshot in
            counter.increment()
            return fixture.source(snapshot)
        })
        for snapshot in fixture.items { _ = try? throughOwner.evaluate(snapshot) }
        XCTAssertGreaterThan(counter.value, 0, "a key path through a relationship is the tree walker's")
    }

    func testSubEntitiesReadTheirOwnIndexOfAnAttributeBothDeclare() throws {
        let fixture = try CompiledEvaluatorFixture()
        let book = try fixture.model.entity(named: "Book"), film = try fixture.model.entity(named: "Film")
        XCTAssertNotEqual(book.propertyIndexes["code"], film.propertyIndexes["code"], "the fixture must put code at different indexes")
        var request = StoreFetchRequest(entityName: "Media", resultType: .managedObjectID)
        request.predicate = try StorePredicate(format: "code ==[c] 'x' AND title == 'Dune'")
        guard case .objectIDs(let both) = try fixture.graph.execute(request) else { return XCTFail("no IDs") }
        XCTAssertEqual(Set(both), Set(["b1", "f1"].compactMap { fixture.ids[$0] }))
        request.predicate = try StorePredicate(format: "code IN {'Y', 'x'} AND NOT code BEGINSWITH 'x'")
        guard case .objectIDs(let films) = try fixture.graph.execute(request) else { return XCTFail("no IDs") }
        XCTAssertEqual(films, ["f2"].compactMap { fixture.ids[$0] })
        request.entityName = "Item"
        XCTAssertThrowsError(try fixture.graph.execute(request), "plain items have no code") { error in
            XCTAssertEqual((error as? FetchError)?.code, .invalidKeyPath)
        }
    }
}

extension StoreValue {
    fileprivate var isString: Bool {
        if case .string = self { return true }
        return false
    }
}
