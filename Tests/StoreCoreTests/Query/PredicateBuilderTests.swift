import XCTest
@testable import StoreCore

final class PredicateBuilderTests: XCTestCase {
    func testBuilderMatchesTheFormatString() throws {
        let built: StorePredicate = .key("magnitude") > 2.5 && .key("place").beginsWith("Cal", caseInsensitive: true)
        XCTAssertEqual(built, try StorePredicate(format: "magnitude > 2.5 AND place BEGINSWITH[c] 'Cal'"))
    }

    func testBuilderCoversQuantifiersArithmeticAndNil() throws {
        let threshold = 100
        let built: StorePredicate = .key("comments").count >= 3 || .key("tags.name").any == "swift"
            || (.key("views") * 2 + .key("likes") > threshold && !.key("title").isNil)
        XCTAssertEqual(
            built,
            try StorePredicate(format: "comments.@count >= 3 OR ANY tags.name == 'swift' OR (views * 2 + likes > 100 AND NOT title == nil)"))
        let none: StorePredicate = .key("tags.name").none.isIn(["a", "b"])
        XCTAssertEqual(none, try StorePredicate(format: "NONE tags.name IN {'a', 'b'}"))
        let between: StorePredicate = .key("latitude").between(30.0, 40.0)
        XCTAssertEqual(between, try StorePredicate(format: "latitude BETWEEN %@", [30.0, 40.0]))
    }

    func testBuilderSubquery() throws {
        let built: StorePredicate = .key("comments").filter("c", StoreTerm.variable("c").key("author") == "ada").count > 0
        XCTAssertEqual(built, try StorePredicate(format: "SUBQUERY(comments, $c, $c.author == 'ada').@count > 0"))
    }
}
