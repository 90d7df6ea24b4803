import Foundation
import XCTest

@testable import StoreCore

/// Sorting by one numeric key (the flat-key fast path) gives the order the general comparison
/// gives: exact for integers, ties in their original order, NULLs and mixed kinds as before.
final class NumericSortKeyTests: XCTestCase {
    /// The elements `0..<keys.count` sorted by `keys` through the flat-key sort and through the
    /// general sort, which compares `StoreValue`s one pair at a time.
    private func bothOrders(_ keys: [StoreValue], ascending: Bool) -> (flat: [Int], general: [Int]) {
        let comparator = SortComparator([ascending ? .ascending("k") : .descending("k")])
        let elements = Array(keys.indices)
        return (comparator.sort(elements, flatKeys: keys), comparator.sort(elements, keys: keys.map { [$0] }))
    }

    func testIntegersSortExactlyEvenBeyondDoublePrecision() {
        let big = Int64.max - 10
        let keys: [StoreValue] = [.integer(big), .integer(big - 1), .integer(big + 1), .integer(-3), .integer(big - 1)]
        let ascending = bothOrders(keys, ascending: true)
        XCTAssertEqual(ascending.flat, [3, 1, 4, 0, 2])
        XCTAssertEqual(ascending.flat, ascending.general)
        let descending = bothOrders(keys, ascending: false)
        XCTAssertEqual(descending.flat, [2, 0, 1, 4, 3])
        XCTAssertEqual(descending.flat, descending.general)
    }

    func testDatesNewestFirstKeepTiesInOrder() {
        let day = Date(timeIntervalSinceReferenceDate: 86_400)
        let keys: [StoreValue] = [.date(day), .date(day.addingTimeInterval(60)), .date(day), .date(day.addingTimeInterval(-1)), .date(day)]
        let descending = bothOrders(keys, ascending: false)
        XCTAssertEqual(descending.flat, [1, 0, 2, 4, 3])
        XCTAssertEqual(descending.flat, descending.general)
        XCTAssertEqual(bothOrders(keys, ascending: true).flat, [3, 0, 2, 4, 1])
    }

    func testDoublesAndFloatsCompareByValue() {
        let keys: [StoreValue] = [.double(2.5), .float(1.5), .double(-0.0), .double(0.0), .double(-7), .float(2.5)]
        let ascending = bothOrders(keys, ascending: true)
        XCTAssertEqual(ascending.flat, [4, 2, 3, 1, 0, 5])
        XCTAssertEqual(ascending.flat, ascending.general)
    }

    func testNullsNaNsAndMixedKindsSortAsBefore() {
        let cases: [[StoreValue]] = [
            [.double(3), .null, .double(1), .null],
            [.double(.nan), .double(1), .double(0)],
            [.integer(3), .double(2.5), .integer(1)],
            [.string("b"), .string("a")],
            [.boolean(true), .boolean(false)],
        ]
        for keys in cases {
            for ascending in [true, false] {
                let orders = bothOrders(keys, ascending: ascending)
                XCTAssertEqual(orders.flat, orders.general, "\(keys) ascending: \(ascending)")
            }
        }
        XCTAssertEqual(bothOrders([.double(3), .null, .double(1), .null], ascending: true).flat, [1, 3, 2, 0])
    }
}
