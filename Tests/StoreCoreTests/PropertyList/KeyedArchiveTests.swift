import Foundation
@testable import StoreCore
import StoreTestSupport
import XCTest

/// `NSKeyedArchiver` archives of Foundation's value classes, read and written without
/// Foundation's unarchiver; anything else refused with a typed error.
final class KeyedArchiveTests: XCTestCase {
    func testValuesRoundTrip() throws {
        let url = try XCTUnwrap(URL(string: "https://example.org/a?b=1"))
        let uuid = try XCTUnwrap(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        let date = Date(timeIntervalSinceReferenceDate: 12345.5)
        let value: [String: Any] = [
            "string": "Misty", "int": 42, "negative": -7, "double": 2.5, "bool": true,
            "decimal": Decimal(string: "-123.456") ?? 0, "data": Data([1, 2, 3]), "date": date, "url": url, "uuid": uuid,
            "array": ["a", 1, NSNull()] as [Any], "set": Set<AnyHashable>(["x", "y"]),
            "nested": ["deep": [[1, 2], [3]]] as [String: Any],
        ]
        let decoded = try XCTUnwrap(KeyedArchive.unarchive(KeyedArchive.archive(value)) as? [String: Any])
        XCTAssertEqual(decoded["string"] as? String, "Misty")
        XCTAssertEqual(decoded["int"] as? Int, 42)
        XCTAssertEqual(decoded["negative"] as? Int, -7)
        XCTAssertEqual(decoded["double"] as? Double, 2.5)
        XCTAssertEqual(decoded["bool"] as? Bool, true)
        XCTAssertEqual(decoded["decimal"] as? Decimal, Decimal(string: "-123.456"))
        XCTAssertEqual(decoded["data"] as? Data, Data([1, 2, 3]))
        XCTAssertEqual(decoded["date"] as? Date, date)
        XCTAssertEqual((decoded["url"] as? URL)?.absoluteString, url.absoluteString)
        XCTAssertEqual(decoded["uuid"] as? UUID, uuid)
        let array = try XCTUnwrap(decoded["array"] as? [Any])
        XCTAssertEqual(array.count, 3)
        XCTAssertEqual(array[0] as? String, "a")
        XCTAssertTrue(array[2] is NSNull)
        XCTAssertEqual(decoded["set"] as? Set<AnyHashable>, ["x", "y"])
        XCTAssertEqual((decoded["nested"] as? [String: Any])?["deep"] as? [[Int]], [[1, 2], [3]])
    }

    /// An archive laid out as Foundation writes one (class descriptions shared, `$null` first).
    private func archive(_ objects: [PropertyListValue], root: UInt64 = 1) -> Data {
        BinaryPropertyListWriter().write(.dictionary([
            "$version": .integer(100_000), "$archiver": .string("NSKeyedArchiver"),
            "$top": .dictionary(["root": .uid(root)]), "$objects": .array(objects),
        ]))
    }

    private func classDescription(_ name: String) -> PropertyListValue {
        .dictionary(["$classname": .string(name), "$classes": .array([.string(name), .string("NSObject")])])
    }

    func testForeignArchiveOfAnArrayReads() throws {
        let data = archive([
            .string("$null"),
            .dictionary(["NS.objects": .array([.uid(2), .uid(3), .uid(2)]), "$class": .uid(4)]),
            .string("swift"), .integer(7), classDescription("NSMutableArray"),
        ])
        let array = try XCTUnwrap(KeyedArchive.unarchive(data) as? [Any])
        XCTAssertEqual(array.count, 3)
        XCTAssertEqual(array[2] as? String, "swift", "a shared reference reads twice")
    }

    func testHostileArchivesAreRefusedWithTypedErrors() {
        func code(_ data: Data) -> PropertyListError.Code? {
            do { _ = try KeyedArchive.unarchive(data); return nil } catch { return error.code }
        }
        // A class outside the allow-list is never instantiated.
        XCTAssertEqual(code(archive([.string("$null"), .dictionary(["$class": .uid(2)]), classDescription("NSTask")])), .classNotAllowed)
        // An array that contains itself.
        XCTAssertEqual(code(archive([.string("$null"), .dictionary(["NS.objects": .array([.uid(1)]), "$class": .uid(2)]), classDescription("NSArray")])), .cyclicReference)
        // A reference out of range, a missing class, a bare array object.
        XCTAssertEqual(code(archive([.string("$null"), .dictionary(["NS.objects": .array([.uid(9)]), "$class": .uid(2)]), classDescription("NSArray")])), .corrupt)
        XCTAssertEqual(code(archive([.string("$null"), .dictionary(["NS.string": .string("x")])])), .corrupt)
        XCTAssertEqual(code(archive([.string("$null"), .array([])])), .corrupt)
        // A set holding `$null` twice (found by the fuzzer: two NSNulls are equal but hash apart).
        XCTAssertNil(code(archive([.string("$null"), .dictionary(["NS.objects": .array([.uid(0), .uid(0)]), "$class": .uid(2)]), classDescription("NSSet")])))
        // A date that is no date (found by the fuzzer: Foundation traps printing it).
        XCTAssertEqual(code(archive([.string("$null"), .dictionary(["NS.time": .real(.nan), "$class": .uid(2)]), classDescription("NSDate")])), .corrupt)
        XCTAssertEqual(code(archive([.string("$null"), .date(Date(timeIntervalSinceReferenceDate: .infinity))])), .corrupt)
        // Not an archive at all.
        XCTAssertEqual(code(BinaryPropertyListWriter().write(.dictionary(["a": .integer(1)]))), .notKeyedArchive)
        XCTAssertEqual(code(Data("not a plist".utf8)), .notBinaryPropertyList)
        // Nesting beyond the limit.
        var objects: [PropertyListValue] = [.string("$null"), classDescription("NSArray")]
        for level in 0..<100 { objects.append(.dictionary(["NS.objects": .array(level == 0 ? [] : [.uid(UInt64(objects.count - 1))]), "$class": .uid(1)])) }
        XCTAssertEqual(code(archive(objects, root: UInt64(objects.count - 1))), .nestingTooDeep)
    }

    func testValuesOfOtherTypesAreNotArchived() {
        struct Point { var x = 1 }
        XCTAssertThrowsError(try KeyedArchive.archive(Point())) { error in
            XCTAssertEqual((error as? PropertyListError)?.code, .classNotAllowed)
        }
        XCTAssertThrowsError(try KeyedArchive.archive(["a": [Point()]])) { error in
            XCTAssertEqual((error as? PropertyListError)?.code, .classNotAllowed)
        }
        XCTAssertThrowsError(try KeyedArchive.archive([Date(timeIntervalSinceReferenceDate: .nan)]), "would not read back") { error in
            XCTAssertEqual((error as? PropertyListError)?.code, .corrupt)
        }
    }

    func testDefaultTransformersStoreFoundationValuesInTransformableAttributes() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Note") {
                .attribute("tags", .transformable(named: "NSSecureUnarchiveFromData"))
                .attribute("extra", .transformable(named: "NSKeyedUnarchiveFromData"))
            }
        }
        let directory = try TemporaryDirectory()
        let url = directory.file("Notes.sqlite")
        do {
            let container = try TestStack.sqliteContainer(model, at: url)
            let context = container.newBackgroundContext()
            try context.performAndWait {
                let note = try context.insertNewObject(forEntityName: "Note")
                try note.setValue(["swift", "linux"], forKey: "tags")
                try note.setValue(["since": Date(timeIntervalSinceReferenceDate: 0), "count": 3] as [String: Any], forKey: "extra")
                try context.save()
                struct Opaque {}
                XCTAssertThrowsError(try note.setValue(Opaque(), forKey: "tags"), "not a Foundation value")
            }
        }
        let container = try TestStack.sqliteContainer(model, at: url)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let note = try XCTUnwrap(context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).first)
            XCTAssertEqual(try note.value(forKey: "tags") as? [String], ["swift", "linux"])
            let extra = try XCTUnwrap(note.value(forKey: "extra") as? [String: Any])
            XCTAssertEqual(extra["count"] as? Int, 3)
            XCTAssertEqual(extra["since"] as? Date, Date(timeIntervalSinceReferenceDate: 0))
        }
    }
}
