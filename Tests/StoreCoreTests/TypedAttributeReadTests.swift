import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// Typed attributes of every kind a slot holds in place, read in each state an object can be in.
final class Reading: ManagedObject {
    @Attribute var score: Double
    @Attribute var count: Int
    @Attribute var total: Int64
    @Attribute var name: String?
    @Attribute var seen: Date?
    @Attribute var flag: Bool
    @Attribute var small: Int16
    @Attribute var ratio: Float
}

/// A typed getter reads what the object holds: set values, `nil` for an optional left empty or
/// set back to `nil`, the values a fault loads when first read, and the empty value of a
/// required attribute not set yet — for the types read straight from their slots (`Double`,
/// `Int`, `Int64`, `String`, `Date`, `Bool`) and for the others (`Int16`, `Float`) alike.
final class TypedAttributeReadTests: XCTestCase {
    private static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Reading", class: Reading.self) {
                .attribute("score", .double, optional: false, defaultValue: .double(0))
                .attribute("count", .integer64, optional: false, defaultValue: .integer(0))
                .attribute("total", .integer64)
                .attribute("name", .string)
                .attribute("seen", .date)
                .attribute("flag", .boolean, optional: false, defaultValue: .boolean(false))
                .attribute("small", .integer16, optional: false, defaultValue: .integer(0))
                .attribute("ratio", .float, optional: false, defaultValue: .float(0))
            }
        }
    }

    func testTypedGettersReadEachStateOfAnObject() throws {
        let context = try TestStack.context(Self.model())
        try context.performAndWait {
            let fresh = try Reading(context: context)
            XCTAssertEqual(fresh.total, 0, "a required-looking read of an empty attribute is the empty value")
            XCTAssertNil(fresh.name)
            XCTAssertNil(fresh.seen)

            let reading = try Reading(context: context)
            reading.score = 2.5
            reading.count = .max
            reading.total = .min
            reading.name = "café"
            reading.seen = Date(timeIntervalSinceReferenceDate: 60)
            reading.flag = true
            reading.small = -7
            reading.ratio = 0.5
            XCTAssertEqual(reading.score, 2.5)
            XCTAssertEqual(reading.count, .max)
            XCTAssertEqual(reading.total, .min)
            XCTAssertEqual(reading.name, "café")
            XCTAssertEqual(reading.seen, Date(timeIntervalSinceReferenceDate: 60))
            XCTAssertTrue(reading.flag)
            XCTAssertEqual(reading.small, -7)
            XCTAssertEqual(reading.ratio, 0.5)
            reading.name = nil
            reading.seen = nil
            XCTAssertNil(reading.name, "set back to nil")
            XCTAssertNil(reading.seen, "set back to nil")
            reading.name = "saved"
            try context.save()

            let id = reading.objectID
            context.reset()
            let fault = try XCTUnwrap(context.object(with: id) as? Reading)
            XCTAssertTrue(fault.isFault)
            XCTAssertEqual(fault.score, 2.5, "the first read loads the fault")
            XCTAssertFalse(fault.isFault)
            XCTAssertEqual(fault.count, .max)
            XCTAssertEqual(fault.total, .min)
            XCTAssertEqual(fault.name, "saved")
            XCTAssertNil(fault.seen)
            XCTAssertTrue(fault.flag)
            XCTAssertEqual(fault.small, -7)
            XCTAssertEqual(fault.ratio, 0.5)
        }
    }

    /// A typed setter records a change as `setValue(_:forKey:)` does: on a saved object (a fault
    /// until then) it loads the object first, the committed values keep what was saved, the
    /// object and its context have changes, and a rollback brings the saved values back.
    func testTypedSettersRecordChangesOfSavedObjects() throws {
        let context = try TestStack.context(Self.model())
        try context.performAndWait {
            let reading = try Reading(context: context)
            reading.score = 1
            reading.name = "first"
            reading.count = 3
            try context.save()
            let id = reading.objectID
            context.reset()

            let fault = try XCTUnwrap(context.object(with: id) as? Reading)
            fault.score = 2
            fault.name = "second"
            fault.name = "third"
            fault.count = 4
            fault.seen = Date(timeIntervalSinceReferenceDate: 5)
            XCTAssertFalse(fault.isFault)
            XCTAssertTrue(fault.hasChanges)
            XCTAssertTrue(context.hasChanges)
            XCTAssertEqual(fault.score, 2)
            XCTAssertEqual(fault.name, "third")
            XCTAssertEqual(Set(fault.changedValues().keys), ["score", "name", "count", "seen"])
            let committed = fault.committedValues(forKeys: ["score", "name", "count"])
            XCTAssertEqual(committed["score"] as? Double, 1)
            XCTAssertEqual(committed["name"] as? String, "first")
            XCTAssertEqual((committed["count"] as? any BinaryInteger).map { Int($0) }, 3)

            context.rollback()
            XCTAssertEqual(fault.score, 1)
            XCTAssertEqual(fault.name, "first")
            XCTAssertEqual(fault.count, 3)
            XCTAssertNil(fault.seen)
            XCTAssertFalse(context.hasChanges)
        }
    }
}
