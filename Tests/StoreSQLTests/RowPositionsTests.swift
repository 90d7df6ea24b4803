@testable import StoreSQL
import XCTest

/// A save's writer groups the rows of one table as positions: a range while they follow each
/// other, else a list — either way every position, in order.
final class RowPositionsTests: XCTestCase {
    func testPositionsFollowingEachOtherAndNotAreKeptInOrder() {
        var rows = RowPositions()
        XCTAssertTrue(rows.isEmpty)
        for row in [4, 5, 6] { rows.append(row) }
        XCTAssertEqual(Array(rows), [4, 5, 6])
        rows.append(9)
        rows.append(10)
        XCTAssertEqual(Array(rows), [4, 5, 6, 9, 10])
        XCTAssertEqual(rows.count, 5)
        XCTAssertEqual(rows[3], 9)
    }
}
