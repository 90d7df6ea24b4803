import XCTest
@testable import StoreCore
import StoreTestSupport

final class PredicateFormatTests: XCTestCase {
    func testParsesIntoTheExpectedTree() throws {
        let p = try StorePredicate(format: "ANY comments.author ==[c] %@ AND NOT views < 10", "ada")
        XCTAssertEqual(p, .and([
            .comparison(StoreComparison(.keyPath("comments.author"), .equalTo, .constant("ada"), modifier: .any, options: .caseInsensitive)),
            .not(.comparison(StoreComparison(.keyPath("views"), .lessThan, .constant(10)))),
        ]))
    }

    func testDescriptionIsCanonical() throws {
        let cases: [(String, String)] = [
            ("magnitude > 2.5 and place beginswith[c] 'Cal'", "magnitude > 2.5 AND place BEGINSWITH[c] \"Cal\""),
            ("NONE tags.name IN {'a', 'b'}", "NOT ANY tags.name IN {\"a\", \"b\"}"),
            ("a = 1 OR b <> 2 && c =< 3", "a == 1 OR (b != 2 AND c <= 3)"),
            ("-x ** 2 > 0x10", "-x ** 2 > 16"),
            ("(a + b) * (c - d) - (e - f) / 2 ** (3 ** 4) > 0", "(a + b) * (c - d) - (e - f) / 2 ** (3 ** 4) > 0"),
            ("a - (b - c) + -(d * 2) - multiply:by:(-1, 5) > 0", "a - (b - c) + -(d * 2) - -1 * 5 > 0"),
            ("castObject:toType:(5, 'NSString') == CAST(x, 'NSString')", "\"5\" == CAST(x, \"NSString\")"),
            ("SELF.name == nil", "name == NULL"),
            ("sum:(comments.likes) == add:to:(1, 2)", "sum:(comments.likes) == 1 + 2"),
            ("time > CAST(0, 'NSDate')", "time > CAST(0.0, \"NSDate\")"),
            ("text == 'it\\'s \"here\"\\n'", "text == \"it's \\\"here\\\"\\n\""),
            ("#self.#and == TRUE", "#self.#and == TRUE"),
            ("SUBQUERY(comments, $c, $c.author == 'x').@count > 0", "SUBQUERY(comments, $c, $c.author == \"x\").@count > 0"),
        ]
        for (format, expected) in cases {
            XCTAssertEqual(try StorePredicate(format: format).description, expected, format)
        }
    }

    func testArgumentsOfEveryKind() throws {
        let id = ManagedObjectID(entityName: "Post", storeIdentifier: "S", primaryKey: 7)
        let date = Date(timeIntervalSinceReferenceDate: 12.5)
        let uuid = UUID()
        let p = try StorePredicate(
            format: "a == %@ AND b == %@ AND c IN %@ AND d IN %@ AND e == %@ AND f == %@ AND g == %@ AND %K == %d AND h == %f AND i == %s AND j == %@",
            id, date, [1, 2], Set(["x"]), Optional<String>.none as Any, uuid, UInt8(3), "k.path", 4, 2.5, "s", StoreExpression.keyPath("other"))
        let expected: StorePredicate = .and([
            .comparison(StoreComparison(.keyPath("a"), .equalTo, .constant(.objectID(id)))),
            .comparison(StoreComparison(.keyPath("b"), .equalTo, .constant(.date(date)))),
            .comparison(StoreComparison(.keyPath("c"), .in, .aggregate([.constant(1), .constant(2)]))),
            .comparison(StoreComparison(.keyPath("d"), .in, .aggregate([.constant("x")]))),
            .comparison(StoreComparison(.keyPath("e"), .equalTo, .constant(.null))),
            .comparison(StoreComparison(.keyPath("f"), .equalTo, .constant(.uuid(uuid)))),
            .comparison(StoreComparison(.keyPath("g"), .equalTo, .constant(3))),
            .comparison(StoreComparison(.keyPath("k.path"), .equalTo, .constant(4))),
            .comparison(StoreComparison(.keyPath("h"), .equalTo, .constant(2.5))),
            .comparison(StoreComparison(.keyPath("i"), .equalTo, .constant("s"))),
            .comparison(StoreComparison(.keyPath("j"), .equalTo, .keyPath("other"))),
        ])
        XCTAssertEqual(p, expected)
        XCTAssertEqual(try StorePredicate(format: p.description), p, "constants without literals print as CAST and parse back")
    }

    func testStaticFormatAndExpressionFormat() throws {
        XCTAssertEqual(try StorePredicate.format("magnitude > %@", 2.5), .comparison(StoreComparison(.keyPath("magnitude"), .greaterThan, .constant(2.5))))
        XCTAssertEqual(try StoreExpression(format: "%K * 2", "views"), .function("multiply:by:", [.keyPath("views"), .constant(2)]))
        XCTAssertThrowsError(try StoreExpression(format: "views *"))
    }

    func testStringLiteralPredicateParses() {
        let p: StorePredicate = "magnitude > 2.5"
        XCTAssertEqual(p, .comparison(StoreComparison(.keyPath("magnitude"), .greaterThan, .constant(2.5))))
        XCTAssertNil(p.literalSyntaxError)
    }

    func testStringLiteralThatDoesNotParseFailsAtEvaluation() throws {
        let p: StorePredicate = "magnitude > * 2.5"
        XCTAssertNotNil(p.literalSyntaxError)
        let fixture = try QueryFixture()
        let q1 = try XCTUnwrap(fixture.source("q1"))
        XCTAssertThrowsError(try PredicateEvaluator().evaluate(p, on: q1)) { error in
            XCTAssertEqual((error as? FetchError)?.code, .invalidPredicate)
            XCTAssertTrue("\(error)".contains("at character 12"), "\(error)")
        }
    }

    func testSubstitutingVariablesLeavesSubqueryVariablesAlone() throws {
        let template = try StorePredicate(format: "views > $min AND SUBQUERY(comments, $c, $c.likes > $min AND $c == $c).@count > 0")
        XCTAssertEqual(template.variableNames, ["min"])
        let p = template.substituting(variables: ["min": 3, "c": "nope"])
        XCTAssertEqual(p, try StorePredicate(format: "views > 3 AND SUBQUERY(comments, $c, $c.likes > 3 AND $c == $c).@count > 0"))
        XCTAssertTrue(p.variableNames.isEmpty)
    }

    func testHexOctalBinaryAndOverflowingLiterals() throws {
        XCTAssertEqual(try StorePredicate(format: "a == 0x7FFFFFFFFFFFFFFF"), .comparison(StoreComparison(.keyPath("a"), .equalTo, .constant(.integer(.max)))))
        XCTAssertEqual(try StorePredicate(format: "a == -9223372036854775808"), .comparison(StoreComparison(.keyPath("a"), .equalTo, .constant(.integer(.min)))))
        XCTAssertEqual(try StorePredicate(format: "a == 99999999999999999999"), .comparison(StoreComparison(.keyPath("a"), .equalTo, .constant(.double(1e20)))))
        XCTAssertThrowsError(try StorePredicate(format: "a == 0x10000000000000000"))
    }
}

extension PredicateFormatTests {
    func testConstantsWithoutLiteralsRoundTrip() throws {
        let values: [StoreValue] = [
            .date(Date(timeIntervalSinceReferenceDate: .infinity)), .date(Date(timeIntervalSinceReferenceDate: -0.5)),
            .double(.infinity), .double(-.infinity), .double(-0.0), .double(.leastNonzeroMagnitude), .float(1.5), .float(.infinity),
            .decimal(Decimal(string: "12.345") ?? 0), .data(Data([0, 1, 255])), .uuid(UUID()),
            .uri(URL(string: "https://example.com/a?b=c") ?? URL(fileURLWithPath: "/")),
            .objectID(ManagedObjectID(entityName: "Post", storeIdentifier: "S1", primaryKey: 42)),
            .string("tab\there \"quoted\" back\\slash \u{7} \u{0} é 🙂"), .integer(.min), .integer(.max),
        ]
        for value in values {
            let p = StorePredicate.comparison(StoreComparison(.keyPath("a"), .equalTo, .constant(value)))
            XCTAssertEqual(try StorePredicate(format: p.description), p, p.description)
        }
    }

    func testNotANumberStaysACastRatherThanAConstant() throws {
        let p = try StorePredicate(format: "a == CAST('nan', 'NSNumber')")
        XCTAssertEqual(try StorePredicate(format: p.description), p)
        guard case .comparison(let c) = p, case .function("castObject:toType:", _) = c.right else { return XCTFail("\(p)") }
    }
}

extension PredicateFormatTests {
    func testBitwiseOperatorsParseIntoCoreDataFunctions() throws {
        func left(_ format: String, _ arguments: Any...) throws -> StoreExpression? {
            guard case .comparison(let c) = try StorePredicate(format: format, argumentArray: arguments) else { return nil }
            return c.left
        }
        let flags = StoreExpression.keyPath("flags")
        XCTAssertEqual(try left("(%K & %d) = %d", "flags", 4, 4), .function("bitwiseAnd:with:", [flags, .constant(4)]))
        XCTAssertEqual(try left("flags & 4 == 0"), .function("bitwiseAnd:with:", [flags, .constant(4)]))
        XCTAssertEqual(try left("(flags | 2) != 0"), .function("bitwiseOr:with:", [flags, .constant(2)]))
        XCTAssertEqual(try left("flags ^ 1 == 0"), .function("bitwiseXor:with:", [flags, .constant(1)]))
        XCTAssertEqual(try left("~mask == 0"), .function("onesComplement:", [.keyPath("mask")]))
        XCTAssertEqual(try left("1 << 3 == 8"), .function("leftshift:by:", [.constant(1), .constant(3)]))
        XCTAssertEqual(try left("flags >> 2 == 8"), .function("rightshift:by:", [flags, .constant(2)]))
        // C's precedence: | looser than ^, looser than &, looser than shifts, looser than + -.
        XCTAssertEqual(
            try left("a | b ^ c & d << e + f == 0"),
            .function("bitwiseOr:with:", [
                .keyPath("a"),
                .function("bitwiseXor:with:", [
                    .keyPath("b"),
                    .function("bitwiseAnd:with:", [
                        .keyPath("c"),
                        .function("leftshift:by:", [.keyPath("d"), .function("add:to:", [.keyPath("e"), .keyPath("f")])]),
                    ]),
                ]),
            ]))
        // `&&` and `||` stay the logical operators.
        XCTAssertEqual(
            try StorePredicate(format: "a & 1 == 1 && b | 2 == 2 || c == 3"),
            .or([
                .and([
                    .comparison(StoreComparison(.function("bitwiseAnd:with:", [.keyPath("a"), .constant(1)]), .equalTo, .constant(1))),
                    .comparison(StoreComparison(.function("bitwiseOr:with:", [.keyPath("b"), .constant(2)]), .equalTo, .constant(2))),
                ]),
                .comparison(StoreComparison(.keyPath("c"), .equalTo, .constant(3))),
            ]))
    }

    func testBitwiseOperatorsPrintBackInAFormThatParsesToTheSameTree() throws {
        let cases: [(String, String)] = [
            ("(flags & 4) == 4", "flags & 4 == 4"),
            ("(a | b) & c == 0", "(a | b) & c == 0"),
            ("a | (b & c) == 0", "a | b & c == 0"),
            ("a ^ (b ^ c) == 0", "a ^ (b ^ c) == 0"),
            ("(a << 1) + 2 == 0", "(a << 1) + 2 == 0"),
            ("a << (1 + 2) == 0", "a << 1 + 2 == 0"),
            ("~(a & b) == 0", "~(a & b) == 0"),
            ("~-5 == 4", "~-5 == 4"),
            ("-~a == 1", "-~a == 1"),
            ("~a ** 2 == 1", "~a ** 2 == 1"),
            ("bitwiseAnd:with:(a, 1) == onesComplement:(b)", "a & 1 == ~b"),
            ("leftshift:by:(a, rightshift:by:(b, 2)) == 0", "a << (b >> 2) == 0"),
        ]
        for (format, expected) in cases {
            let parsed = try StorePredicate(format: format)
            XCTAssertEqual(parsed.description, expected, format)
            XCTAssertEqual(try StorePredicate(format: parsed.description), parsed, format)
        }
    }
}

extension PredicateFormatTests {
    func testIndexSubscriptsParseIntoObjectFromWithIndex() throws {
        func left(_ format: String, _ arguments: Any...) throws -> StoreExpression? {
            guard case .comparison(let c) = try StorePredicate(format: format, argumentArray: arguments) else { return nil }
            return c.left
        }
        let items = StoreExpression.keyPath("items")
        XCTAssertEqual(try left("items[FIRST] == nil"), .function("objectFrom:withIndex:", [items, .function("FIRST", [])]))
        XCTAssertEqual(try left("items[last] == nil"), .index(items, .last))
        XCTAssertEqual(try left("items[SIZE] == 2"), .index(items, .size))
        XCTAssertEqual(try left("items[2] == nil"), .index(items, .constant(2)))
        XCTAssertEqual(try left("items[%d] == nil", 3), .index(items, .constant(3)))
        XCTAssertEqual(try left("items[$i] == nil"), .index(items, .variable("i")))
        XCTAssertEqual(try left("items[FIRST].name == 'x'"), .member(.index(items, .first), "name"))
        XCTAssertEqual(try left("%@[FIRST] == 1", [1, 2]), .index(.aggregate([.constant(1), .constant(2)]), .first))
        XCTAssertEqual(try left("a.items[1 + 1][LAST] == 1"), .index(.index(.keyPath("a.items"), .function("add:to:", [.constant(1), .constant(1)])), .last))
        // `[c]` after an operator stays the comparison's options.
        XCTAssertEqual(try StorePredicate(format: "items[FIRST] ==[c] 'x'"), .comparison(StoreComparison(.index(items, .first), .equalTo, .constant("x"), options: .caseInsensitive)))
    }

    func testIndexSubscriptsPrintBackInAFormThatParsesToTheSameTree() throws {
        let cases: [(String, String)] = [
            ("items[first].name == 'x'", "items[FIRST].name == \"x\""),
            ("items[SIZE] > 2 AND items[LAST] != nil", "items[SIZE] > 2 AND items[LAST] != NULL"),
            ("(a + b)[0] == 1", "(a + b)[0] == 1"),
            ("objectFrom:withIndex:(items, 2) == nil", "items[2] == NULL"),
            ("{1, 2}[depth - 1] == 2", "{1, 2}[depth - 1] == 2"),
            ("SUBQUERY(items, $x, $x.ok == TRUE)[LAST].name == 'x'", "SUBQUERY(items, $x, $x.ok == TRUE)[LAST].name == \"x\""),
        ]
        for (format, expected) in cases {
            let parsed = try StorePredicate(format: format)
            XCTAssertEqual(parsed.description, expected, format)
            XCTAssertEqual(try StorePredicate(format: parsed.description), parsed, format)
        }
    }
}

extension PredicateFormatTests {
    func testFunctionOnAReceiverRoundTrips() throws {
        let p = try StorePredicate(format: "FUNCTION(place, 'hasPrefix:', %@) == YES AND FUNCTION(time, 'timeIntervalSince1970') > 0", "Ridge")
        XCTAssertEqual(p.description, "FUNCTION(place, \"hasPrefix:\", \"Ridge\") == TRUE AND FUNCTION(time, \"timeIntervalSince1970\") > 0")
        XCTAssertEqual(try StorePredicate(format: p.description), p)
        guard case .and(let parts) = p, case .comparison(let c) = parts[0] else { return XCTFail("\(p)") }
        XCTAssertEqual(c.left, .function("FUNCTION", [.keyPath("place"), .constant("hasPrefix:"), .constant("Ridge")]))
    }

    func testFunctionSelectorsGiveFoundationsAnswers() throws {
        func call(_ selector: String, _ receiver: StoreValue, _ arguments: StoreValue...) throws -> StoreValue {
            try FunctionSelector.apply(selector, to: receiver, arguments: arguments)
        }
        XCTAssertEqual(try call("length", "🙂é"), .integer(3), "UTF-16 code units, as NSString")
        XCTAssertEqual(try call("integerValue", "  -42abc"), .integer(-42))
        XCTAssertEqual(try call("intValue", "99999999999"), .integer(Int64(Int32.max)))
        XCTAssertEqual(try call("doubleValue", " 2.5e1x"), .double(25))
        XCTAssertEqual(try call("boolValue", " +007"), .boolean(true))
        XCTAssertEqual(try call("boolValue", "no"), .boolean(false))
        XCTAssertEqual(try call("boolValue", "Yes"), .boolean(true))
        XCTAssertEqual(try call("stringValue", .double(1e20)), .string("1e+20"))
        XCTAssertEqual(try call("stringValue", .boolean(true)), .string("1"))
        XCTAssertEqual(try call("hasPrefix:", "abc", ""), .boolean(false), "NSString: an empty prefix never matches")
        XCTAssertEqual(try call("substringToIndex:", "🙂x", .integer(2)), .string("🙂"))
        XCTAssertEqual(try call("description", .date(Date(timeIntervalSinceReferenceDate: 0))), .string("2001-01-01 00:00:00 +0000"))
        XCTAssertEqual(try call("lowercaseString", .null), .null, "a message to nil is nil")
        XCTAssertThrowsError(try call("substringFromIndex:", "abc", .integer(4))) { error in
            XCTAssertEqual((error as? FetchError)?.code, .invalidArgument)
        }
        XCTAssertThrowsError(try call("timeIntervalSince1970", "abc")) { error in
            XCTAssertEqual((error as? FetchError)?.code, .invalidArgument)
        }
    }
}
