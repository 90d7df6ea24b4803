import Foundation
@testable import StoreCore
import XCTest

/// What an object's values hold, laid out by their properties' types: every kind of value reads
/// back as it was set, a value of another kind than its property's is kept as given, and copies
/// never see each other's changes.
final class StoreValuesTests: XCTestCase {
    private let kinds: [StoreValueLayout.SlotKind] = [
        .integer, .double, .float, .boolean, .date, .uuid, .decimal, .string, .data, .uri, .objectID, .any, .empty,
    ]
    private let id = ManagedObjectID(entityName: "Post", storeIdentifier: "S", primaryKey: 7)

    /// One value of each slot's own kind, in the order of `kinds`.
    private var ownKinds: [StoreValue] {
        [
            .integer(-42), .double(2.5), .float(1.25), .boolean(true), .date(Date(timeIntervalSinceReferenceDate: 1234.5)),
            .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID()), .decimal(Decimal(string: "3.14159") ?? 0),
            .string("a string too long to be stored inside the String itself"), .data(Data(repeating: 7, count: 100)),
            .uri(URL(string: "https://example.com/a/b") ?? URL(fileURLWithPath: "/")), .objectID(id), .string("any kind"), .null,
        ]
    }

    func testEveryKindOfValueReadsBackAsSet() {
        var values = StoreValues(layout: StoreValueLayout(slotKinds: kinds))
        XCTAssertEqual(values.count, kinds.count)
        XCTAssertTrue(values.allSatisfy(\.isNull))
        for (index, value) in ownKinds.enumerated() { values[index] = value }
        XCTAssertEqual(Array(values), ownKinds)
        for index in values.indices { XCTAssertEqual(values.isNull(at: index), ownKinds[index].isNull) }
    }

    func testAValueOfAnotherKindThanItsSlotIsKeptAsGiven() {
        var values = StoreValues(layout: StoreValueLayout(slotKinds: kinds))
        // Each slot gets the value of the next slot's kind (and the to-many slot an ID list's member).
        let others = Array(ownKinds.dropFirst()) + [.integer(9)]
        for (index, value) in others.enumerated() { values[index] = value }
        XCTAssertEqual(Array(values), others)
        // Replaced again by a value of its own kind, and by null.
        values[0] = .integer(5)
        values[7] = .null
        XCTAssertEqual(values[0], .integer(5))
        XCTAssertEqual(values[7], .null)
        XCTAssertEqual(values[8], others[8])
    }

    func testCopiesNeverSeeEachOthersChanges() {
        var original = StoreValues(layout: StoreValueLayout(slotKinds: kinds))
        for (index, value) in ownKinds.enumerated() { original[index] = value }
        original[0] = .string("boxed")
        var copy = original
        copy[7] = .string("changed in the copy")
        copy[0] = .integer(1)
        XCTAssertEqual(original[7], ownKinds[7])
        XCTAssertEqual(original[0], .string("boxed"))
        XCTAssertEqual(copy[7], .string("changed in the copy"))
        XCTAssertEqual(copy[0], .integer(1))
        // The copy keeps every value once the original is gone.
        var survivor: StoreValues? = copy
        copy = StoreValues()
        original = StoreValues()
        XCTAssertEqual(survivor?[8], ownKinds[8])
        XCTAssertEqual(survivor?[10], ownKinds[10])
        survivor = nil
    }

    func testEqualValuesAreEqualAndHashAlikeWhateverBufferHoldsThem() {
        let layout = StoreValueLayout(slotKinds: [.integer, .string])
        var a = StoreValues(layout: layout), b = StoreValues(layout: layout)
        a[0] = 1; a[1] = "one"
        b[1] = "one"; b[0] = 1
        XCTAssertEqual(a, b)
        XCTAssertEqual(a.hashValue, b.hashValue)
        b[1] = "two"
        XCTAssertNotEqual(a, b)
        XCTAssertEqual(StoreValues(), StoreValues())
        XCTAssertEqual(a.description, "[1, \"one\"]")
    }

    /// Through a context and a store: values set, refused and saved read back as they were.
    func testAnObjectsValuesSurviveASaveAndAFetch() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Reading") {
                .attribute("count", .integer64)
                .attribute("small", .integer16)
                .attribute("note", .string)
            }
        }
        let container = PersistentContainer(name: "Readings", managedObjectModel: model)
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: .inMemory)]
        try container.loadPersistentStores()
        let context = container.viewContext
        let reading = try context.insertNewObject(forEntityName: "Reading")
        XCTAssertThrowsError(try reading.setValue("twelve", forKey: "count"))
        XCTAssertNil(try reading.value(forKey: "count"))
        try reading.setValue(Int64(12), forKey: "count")
        try reading.setValue(Int16(-3), forKey: "small")
        try reading.setValue("a note long enough to live outside the string", forKey: "note")
        try context.save()
        let other = container.newBackgroundContext()
        try other.performAndWait {
            let fetched = try other.fetch(FetchRequest<ManagedObject>(entityName: "Reading"))
            XCTAssertEqual(fetched.count, 1)
            XCTAssertEqual(try fetched.first?.value(forKey: "count") as? Int64, 12)
            XCTAssertEqual(try fetched.first?.value(forKey: "small") as? Int64, -3)
            XCTAssertEqual(try fetched.first?.value(forKey: "note") as? String, "a note long enough to live outside the string")
        }
    }
}
