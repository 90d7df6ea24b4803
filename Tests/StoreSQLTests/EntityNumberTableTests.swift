import StoreSQL
import XCTest

/// Rows name their entity by number; every number a store may hold must find its entry, small or not.
final class EntityNumberTableTests: XCTestCase {
    func testSmallUnusualAndUnknownNumbersAreFound() {
        let table = EntityNumberTable([1: "Post", 2: "Tag", 0: "Zero", 5_000: "Far", -3: "Negative", Int64.max: "Largest"])
        XCTAssertEqual(table[1], "Post")
        XCTAssertEqual(table[2], "Tag")
        XCTAssertEqual(table[0], "Zero")
        XCTAssertEqual(table[5_000], "Far", "a number beyond the array is still found")
        XCTAssertEqual(table[-3], "Negative")
        XCTAssertEqual(table[Int64.max], "Largest")
        XCTAssertNil(table[3])
        XCTAssertNil(table[4_999])
        XCTAssertNil(table[Int64.min])
        XCTAssertNil(EntityNumberTable<String>([:])[1])
    }
}
