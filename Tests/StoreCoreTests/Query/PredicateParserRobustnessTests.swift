import XCTest
@testable import StoreCore
import StoreTestSupport

/// Feeds the parser random and mutated format strings: each must give a predicate or a
/// ``PredicateSyntaxError`` — never a trap — and every predicate it gives must print back to
/// itself and evaluate (or fail with a ``FetchError``) without trapping.
final class PredicateParserRobustnessTests: XCTestCase {
    static let fragments = [
        "magnitude", "depth", "place", "reports", "region.name", "reports.rating", "@count", "@sum", "@avg", ".",
        "==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "+", "-", "*", "/", "**", "(", ")", "{", "}", "[c]",
        "[cd]", "[", "]", ",", " AND ", " OR ", " && ", " || ", "NOT ", "!", "ANY ", "ALL ", "NONE ", "SOME ",
        " IN ", " LIKE ", " MATCHES ", " BEGINSWITH ", " ENDSWITH ", " CONTAINS ", " BETWEEN ", "TRUEPREDICATE",
        "FALSEPREDICATE", "SUBQUERY(", "$x", "$", "%@", "%K", "%d", "%f", "%s", "%", "'a*'", "\"b\\n\"", "'", "\"",
        "\\", "0x1F", "0b2", "0o7", "1e3", "2.5", "-", "9999999999999999999999", "nil", "TRUE", "NO", "SELF", "#in",
        "now()", "sum:(", "add:to:(", "FUNCTION(", "CAST(", "TERNARY(", ":", "é", "🙂", "\u{0}", "\n", " ",
    ]

    func testTenThousandRandomAndMutatedStringsNeverTrap() throws {
        let fixture = try QueryFixture()
        guard let q1 = fixture.source("q1") else { return XCTFail("fixture has no q1") }
        var rng = SeededGenerator(state: 0x5707_A6E)
        let seeds = QueryCases.all.map(\.format)
        var parsed = 0, refused = 0
        for round in 0..<12_000 {
            let input: String
            switch round % 3 {
            case 0: input = Self.mutate(seeds[Int.random(in: 0..<seeds.count, using: &rng)], &rng)
            case 1: input = Self.randomFragments(&rng)
            default: input = Self.randomScalars(&rng)
            }
            // Usually one argument per `%`, sometimes one too many or too few.
            let specifiers = input.unicodeScalars.filter { $0 == "%" }.count
            let count = max(0, specifiers + (Int.random(in: 0..<10, using: &rng) == 0 ? Int.random(in: -1...1, using: &rng) : 0))
            let arguments: [Any] = (0..<count).map { _ in Self.randomArgument(&rng) }
            let predicate: StorePredicate
            do {
                predicate = try StorePredicate(format: input, argumentArray: arguments)
            } catch {
                refused += 1
                XCTAssertFalse(error.message.isEmpty)
                XCTAssertTrue(error.description.contains("^"))
                continue
            }
            parsed += 1
            let printed = predicate.description
            do {
                let again = try StorePredicate(format: printed)
                XCTAssertEqual(again, predicate, "round trip of \(input.debugDescription) printed as \(printed.debugDescription)")
            } catch {
                XCTFail("\(input.debugDescription) printed as \(printed.debugDescription), which does not parse: \(error)")
            }
            do {
                _ = try PredicateEvaluator().evaluate(predicate, on: q1)
            } catch {
                // Unknown keys, unbound variables, bad regexes: refused with a FetchError, not trapped.
                XCTAssertTrue(error is FetchError, "\(error)")
            }
        }
        print("robustness: \(parsed) parsed, \(refused) refused")
        XCTAssertEqual(parsed + refused, 12_000)
        XCTAssertGreaterThan(parsed, 500, "the generator should produce some valid predicates")
    }

    static func mutate(_ seed: String, _ rng: inout SeededGenerator) -> String {
        var scalars = Array(seed.unicodeScalars)
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            let position = scalars.isEmpty ? 0 : Int.random(in: 0...scalars.count, using: &rng)
            switch Int.random(in: 0..<4, using: &rng) {
            case 0 where position < scalars.count:
                scalars.remove(at: position)
            case 1:
                let fragment = fragments[Int.random(in: 0..<fragments.count, using: &rng)]
                scalars.insert(contentsOf: fragment.unicodeScalars, at: position)
            case 2 where position < scalars.count:
                let end = min(scalars.count, position + Int.random(in: 1...8, using: &rng))
                scalars.removeSubrange(position..<end)
            default:
                if let scalar = Unicode.Scalar(UInt32.random(in: 0x20...0x7E, using: &rng)) {
                    scalars.insert(scalar, at: position)
                }
            }
        }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    static func randomFragments(_ rng: inout SeededGenerator) -> String {
        (0..<Int.random(in: 1...12, using: &rng)).map { _ in fragments[Int.random(in: 0..<fragments.count, using: &rng)] }.joined()
    }

    static func randomScalars(_ rng: inout SeededGenerator) -> String {
        var view = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...40, using: &rng) {
            let value = Bool.random(using: &rng) ? UInt32.random(in: 0x20...0x7E, using: &rng) : UInt32.random(in: 0...0x2FFF, using: &rng)
            if let scalar = Unicode.Scalar(value) { view.append(scalar) }
        }
        return String(view)
    }

    static func randomArgument(_ rng: inout SeededGenerator) -> Any {
        switch Int.random(in: 0..<7, using: &rng) {
        case 0: return Int.random(in: -5...5, using: &rng)
        case 1: return Double.random(in: -10...10, using: &rng)
        case 2: return "magnitude"
        case 3: return [1, 2]
        case 4: return Optional<String>.none as Any
        case 5: return Date(timeIntervalSinceReferenceDate: 1000)
        default: return UInt8(7)
        }
    }
}

extension PredicateParserRobustnessTests {
    /// Parentheses may open a predicate or an expression; a predicate inside an expression
    /// inside parentheses (TERNARY, SUBQUERY) must not make the parser retry exponentially.
    func testNestedParenthesizedPredicatesInsideExpressionsParseOnce() throws {
        var format = "a == 1"
        for _ in 0..<22 { format = "(TERNARY(" + format + ", 1, 2)) == 1" }
        let predicate = try StorePredicate(format: format)
        XCTAssertEqual(try StorePredicate(format: predicate.description), predicate)
    }
}
