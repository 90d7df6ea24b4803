import Foundation
import StoreCore
import StoreTestSupport
import StowageTestKit
import XCTest

/// `setValue(_:forKey:)` with the plain Swift values most calls pass (`String`, `Int`, `Double`,
/// `Bool`, found by their type) stores what `setStoreValue(_:forKey:)` stores for the same value,
/// and refuses what it refuses; nothing is bridged on the way (an `NSString` is refused, as before).
final class PlainValueSettingTests: XCTestCase {
    func testPlainValuesAreStoredAsTheirStoreValuesAre() throws {
        let container = try TestStack.container(QuakeModel.make())
        let context = container.newBackgroundContext()
        let cases: [(value: any StoreValueConvertible, key: String)] = [
            ("q1", "code"), ("", "place"), (7, "depth"), (-3, "magnitude"), (2.5, "magnitude"), (4.0, "depth"),
            (4.5, "depth"), (true, "depth"), (false, "magnitude"), (1, "code"), ("7", "depth"), (true, "code"),
            (Int.max, "depth"),
        ]
        try context.performAndWait {
            for (value, key) in cases {
                let typed = try context.insertNewObject(forEntityName: "Quake")
                let plain = try context.insertNewObject(forEntityName: "Quake")
                let typedError = Self.code { try typed.setStoreValue(value.storeValue, forKey: key) }
                let plainError = Self.code { try plain.setValue(value as Any, forKey: key) }
                XCTAssertEqual(plainError, typedError, "\(value) for \(key)")
                XCTAssertEqual(try plain.storeValue(forKey: key), try typed.storeValue(forKey: key), "\(value) for \(key)")
            }
            let quake = try context.insertNewObject(forEntityName: "Quake")
            // Not bridged on the way: an NSString is refused, as it always was.
            XCTAssertEqual(Self.code { try quake.setValue(NSString(string: "bridged"), forKey: "code") }, "wrongType")
            try quake.setValue(Optional("wrapped") as Any, forKey: "place")
            XCTAssertEqual(try quake.storeValue(forKey: "place"), .string("wrapped"), "an optional in an Any takes the general path")
            try quake.setValue(Int32(9), forKey: "depth")
            XCTAssertEqual(try quake.storeValue(forKey: "depth"), .integer(9))
            try quake.setValue(nil, forKey: "place")
            XCTAssertEqual(try quake.storeValue(forKey: "place"), .null)
        }
    }

    /// The error code `body` throws, `nil` when it does not.
    private static func code(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as ObjectValidationError {
            return "\(error.code)"
        } catch {
            return "\(error)"
        }
    }
}
