import XCTest
@testable import StoreCore

final class PredicateParserSmokeTests: XCTestCase {
    func testPrintsSamples() throws {
        let samples = [
            "magnitude > 2.5 and place beginswith[c] 'Cal'",
            "ANY comments.author ==[cd] \"ada\" OR NOT (views < 10 AND views >= 2)",
            "NONE tags.name IN {'a', 'b'}",
            "SUBQUERY(comments, $c, $c.author == 'x').@count > 0",
            "(views + 2) * 3 ** 2 > -views / 2",
            "-9223372036854775808 == 0x10 - 0b11 + 0o17",
            "sum:(comments.likes) == add:to:(1, 2) AND now() > CAST(0, 'NSDate')",
            "#in == TRUE && !(self.title != nil)",
            "FUNCTION(SELF, 'foo:', 1) = 2",
            "TERNARY(views > 1, 'a', 'b') == 'a'",
            "title LIKE 'a*b?' AND title MATCHES '^[a-z]+$'",
            "x BETWEEN {1, 2}",
        ]
        for s in samples {
            let p = try StorePredicate(format: s)
            let again = try StorePredicate(format: p.description)
            print(s, " ==> ", p)
            XCTAssertEqual(p, again, "\(p)")
        }
        for bad in ["magnitude >> 2", "a ==", "'abc", "a == %@", "(a == 1", "SUBQUERY(a, b, c)"] {
            XCTAssertThrowsError(try StorePredicate(format: bad)) { print($0) }
        }
    }
}
