import XCTest
@testable import StoreCore

final class PredicateSyntaxErrorTests: XCTestCase {
    private func error(_ format: String, _ arguments: Any...) -> PredicateSyntaxError? {
        do {
            _ = try StorePredicate(format: format, argumentArray: arguments)
            return nil
        } catch {
            return error
        }
    }

    func testErrorSaysWhatWasExpectedWhereAndShowsACaret() throws {
        let e = try XCTUnwrap(error("magnitude > * 2"))
        XCTAssertEqual(e.code, .unexpectedToken)
        XCTAssertEqual(e.offset, 12)
        XCTAssertEqual(e.message, "expected an expression, found '*'")
        XCTAssertEqual(e.description, "expected an expression, found '*' at character 12\n  magnitude > * 2\n              ^")
    }

    func testUnterminatedStringPointsAtItsOpeningQuote() throws {
        let e = try XCTUnwrap(error("place == 'Cal AND depth > 2"))
        XCTAssertEqual(e.code, .invalidString)
        XCTAssertEqual(e.offset, 9)
    }

    func testMissingArgumentPointsAtTheSpecifier() throws {
        let e = try XCTUnwrap(error("magnitude > %@ AND depth < %d", 2.5))
        XCTAssertEqual(e.code, .missingArgument)
        XCTAssertEqual(e.offset, 27)
        XCTAssertTrue(e.message.contains("argument 2"), e.message)
    }

    func testExtraArgumentsAreRefused() throws {
        let e = try XCTUnwrap(error("magnitude > %@", 2.5, 3.5))
        XCTAssertEqual(e.code, .extraArgument)
    }

    func testWrongArgumentKindNamesTheSpecifierAndTheType() throws {
        let e = try XCTUnwrap(error("%K > 2", 7))
        XCTAssertEqual(e.code, .wrongArgumentType)
        XCTAssertEqual(e.offset, 0)
        XCTAssertTrue(e.message.contains("%K"), e.message)
        XCTAssertTrue(e.message.contains("Int"), e.message)
    }

    func testLongInputShowsAWindowAroundTheError() throws {
        let format = String(repeating: "magnitude > 1 AND ", count: 20) + "depth ?? 2"
        let e = try XCTUnwrap(error(format))
        XCTAssertEqual(e.code, .invalidCharacter)
        let lines = e.excerpt.split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        XCTAssertTrue(lines[0].contains("depth ??"), e.excerpt)
        XCTAssertLessThan(lines[0].count, 90)
        XCTAssertEqual(lines[1].firstIndex(of: "^").map { lines[1].distance(from: lines[1].startIndex, to: $0) },
                       lines[0].range(of: "??").map { lines[0].distance(from: lines[0].startIndex, to: $0.lowerBound) })
    }

    func testKeywordAsKeyNeedsEscaping() throws {
        let e = try XCTUnwrap(error("in == 2"))
        XCTAssertTrue(e.message.contains("#in"), e.message)
        XCTAssertEqual(try StorePredicate(format: "#in == 2"), .comparison(StoreComparison(.keyPath("in"), .equalTo, .constant(2))))
    }
}

extension PredicateSyntaxErrorTests {
    func testKeyPathArgumentMustBeAKeyPath() throws {
        for bad in ["", "a b", "1x", "a..b", "a.", "@"] {
            XCTAssertEqual(error("%K == 1", bad)?.code, .wrongArgumentType, bad)
        }
        XCTAssertNil(error("%K == 1", "author.posts.@count"))
    }
}

extension PredicateSyntaxErrorTests {
    func testMalformedBitwiseAndIndexFormsSayWhereAndWhatWasExpected() throws {
        let cases: [(String, Int, String)] = [
            ("flags &", 7, "expected an expression, found the end of the format string"),
            ("flags & == 1", 8, "expected an expression, found '=='"),
            ("flags <<< 1 == 0", 8, "expected an expression, found '<'"),
            ("items[", 6, "expected an index (FIRST, LAST, SIZE or an integer), found the end of the format string"),
            ("items[] == 1", 6, "expected an index (FIRST, LAST, SIZE or an integer), found ']'"),
            ("items[FIRST == 1", 12, "expected ']' to close the index, found '=='"),
        ]
        for (format, offset, message) in cases {
            let e = try XCTUnwrap(error(format), format)
            XCTAssertEqual(e.code, .unexpectedToken, format)
            XCTAssertEqual(e.offset, offset, format)
            XCTAssertEqual(e.message, message, format)
        }
    }
}

extension PredicateSyntaxErrorTests {
    func testFunctionWithAnUnknownSelectorPointsAtTheSelectorAndListsTheKnownOnes() throws {
        let e = try XCTUnwrap(error("FUNCTION(name, 'noSuchSelector') == 1"))
        XCTAssertEqual(e.code, .unexpectedToken)
        XCTAssertEqual(e.offset, 15)
        XCTAssertTrue(e.message.hasPrefix("expected a FUNCTION selector Stowage can call ("), e.message)
        XCTAssertTrue(e.message.contains("lowercaseString"), e.message)
        XCTAssertTrue(e.message.hasSuffix("found 'noSuchSelector'"), e.message)
        let arguments = try XCTUnwrap(error("FUNCTION(name, 'hasPrefix:') == YES"))
        XCTAssertEqual(arguments.offset, 27)
        XCTAssertEqual(arguments.message, "expected ',' and 1 more argument(s) for hasPrefix:, found ')'")
        let extra = try XCTUnwrap(error("FUNCTION(name, 'length', 2) == 1"))
        XCTAssertEqual(extra.offset, 26)
        XCTAssertEqual(extra.message, "expected ')' after the 0 argument(s) of length, found ')'")
        let notAString = try XCTUnwrap(error("FUNCTION(name, length) == 1"))
        XCTAssertEqual(notAString.offset, 15)
        XCTAssertEqual(notAString.message, "expected a selector string such as 'lowercaseString', found 'length'")
    }
}
