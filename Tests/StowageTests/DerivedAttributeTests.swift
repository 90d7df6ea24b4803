import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// Derived attributes are computed by every store type when it saves, and read back by the
/// context: counts and aggregates of a to-many, copies through a to-one, string functions and
/// `now()` — as Core Data's SQLite store computes them with triggers.
final class DerivedAttributeTests: XCTestCase {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Folder") {
                .attribute("name", .string)
                .attribute("itemCount", .integer64, optional: false, derivation: "items.@count")
                .attribute("totalSize", .integer64, derivation: "items.@sum.bytes")
                .attribute("largest", .integer64, derivation: "items.@max.bytes")
                .attribute("smallest", .integer64, derivation: "items.@min.bytes")
                .attribute("searchName", .string, derivation: "canonical:(name)")
                .attribute("shoutedName", .string, derivation: "uppercase:(name)")
                .attribute("quietName", .string, derivation: "lowercase:(name)")
                .attribute("modified", .date, optional: false, derivation: "now()")
                .toMany("items", destination: "Item", inverse: "folder")
            }
            EntityDescription("Item") {
                .attribute("bytes", .integer64, defaultValue: 0)
                .attribute("folderName", .string, derivation: "folder.name")
                .attribute("sizeCopy", .integer64, derivation: "bytes")
                .toOne("folder", destination: "Folder", inverse: "items")
            }
        }
    }

    private func folder(in context: ManagedObjectContext) throws -> ManagedObject {
        let request = FetchRequest<ManagedObject>(entityName: "Folder")
        let folders = try context.fetch(request)
        guard let folder = folders.first, folders.count == 1 else { throw StoreError(.corrupt, "expected one folder, found \(folders.count)") }
        return folder
    }

    func testEveryStoreComputesDerivedAttributesOnSave() throws {
        let model = try Self.model()
        forEachBackend { backend in
            let stack = try BackendStack(backend, model: model)
            let context = stack.newContext()
            let before = Date()
            try context.performAndWait {
                let folder = try context.insertNewObject(forEntityName: "Folder")
                try folder.setValue("Café Menu", forKey: "name")
                for size in [Int64(3), 5, 2] {
                    let item = try context.insertNewObject(forEntityName: "Item")
                    try item.setValue(size, forKey: "bytes")
                    try item.setValue(folder, forKey: "folder")
                }
                // A required derived attribute needs no value: the store computes it.
                try context.save()

                // The saving context sees the computed values at once.
                XCTAssertEqual(try folder.value(forKey: "itemCount") as? Int64, 3, "\(backend)")
                XCTAssertEqual(try folder.value(forKey: "totalSize") as? Int64, 10, "\(backend)")
                XCTAssertEqual(try folder.value(forKey: "largest") as? Int64, 5, "\(backend)")
                XCTAssertEqual(try folder.value(forKey: "smallest") as? Int64, 2, "\(backend)")
                XCTAssertEqual(try folder.value(forKey: "searchName") as? String, "cafe menu", "\(backend)")
                XCTAssertEqual(try folder.value(forKey: "shoutedName") as? String, "CAFÉ MENU", "\(backend)")
                XCTAssertEqual(try folder.value(forKey: "quietName") as? String, "café menu", "\(backend)")
                let modified = try XCTUnwrap(try folder.value(forKey: "modified") as? Date, "\(backend)")
                XCTAssertGreaterThanOrEqual(modified.timeIntervalSince(before), -1, "\(backend)")
                let items = try XCTUnwrap(try folder.value(forKey: "items") as? Set<ManagedObject>)
                for item in items {
                    XCTAssertEqual(try item.value(forKey: "folderName") as? String, "Café Menu", "\(backend)")
                    XCTAssertEqual(try item.value(forKey: "sizeCopy") as? Int64, try item.value(forKey: "bytes") as? Int64, "\(backend)")
                }

                // Removing a member and renaming the folder updates the counts, the aggregates
                // and the copies in the members.
                let largest = try XCTUnwrap(items.first { (try? $0.value(forKey: "bytes") as? Int64) == 5 })
                context.delete(largest)
                try folder.setValue("Tea", forKey: "name")
                try context.save()
                XCTAssertEqual(try folder.value(forKey: "itemCount") as? Int64, 2, "\(backend)")
                XCTAssertEqual(try folder.value(forKey: "totalSize") as? Int64, 5, "\(backend)")
                XCTAssertEqual(try folder.value(forKey: "largest") as? Int64, 3, "\(backend)")
                XCTAssertEqual(try folder.value(forKey: "searchName") as? String, "tea", "\(backend)")
                for item in try XCTUnwrap(try folder.value(forKey: "items") as? Set<ManagedObject>) {
                    XCTAssertEqual(try item.value(forKey: "folderName") as? String, "Tea", "\(backend)")
                }
            }

            // The values are stored: another context (after a reopen for file stores) reads them,
            // and fetches can filter on them.
            try stack.reopen()
            let reader = stack.newContext()
            try reader.performAndWait {
                let folder = try folder(in: reader)
                XCTAssertEqual(try folder.value(forKey: "itemCount") as? Int64, 2, "\(backend)")
                XCTAssertEqual(try folder.value(forKey: "shoutedName") as? String, "TEA", "\(backend)")
                var request = FetchRequest<ManagedObject>(entityName: "Item")
                request.predicate = try StorePredicate(format: "folderName == 'Tea' AND sizeCopy > 2")
                XCTAssertEqual(try reader.count(for: request), 1, "\(backend)")
            }
        }
    }

    func testMovingAMemberUpdatesBothOwners() throws {
        let model = try Self.model()
        forEachBackend { backend in
            let stack = try BackendStack(backend, model: model)
            let context = stack.newContext()
            try context.performAndWait {
                let first = try context.insertNewObject(forEntityName: "Folder")
                try first.setValue("first", forKey: "name")
                let second = try context.insertNewObject(forEntityName: "Folder")
                try second.setValue("second", forKey: "name")
                let item = try context.insertNewObject(forEntityName: "Item")
                try item.setValue(Int64(4), forKey: "bytes")
                try item.setValue(first, forKey: "folder")
                try context.save()
                XCTAssertEqual(try first.value(forKey: "itemCount") as? Int64, 1, "\(backend)")
                XCTAssertEqual(try second.value(forKey: "itemCount") as? Int64, 0, "\(backend)")

                try item.setValue(second, forKey: "folder")
                try context.save()
                XCTAssertEqual(try first.value(forKey: "itemCount") as? Int64, 0, "\(backend)")
                XCTAssertEqual(try first.value(forKey: "totalSize") as? Int64, 0, "\(backend)")
                XCTAssertNil(try first.value(forKey: "largest"), "\(backend)")
                XCTAssertEqual(try second.value(forKey: "itemCount") as? Int64, 1, "\(backend)")
                XCTAssertEqual(try item.value(forKey: "folderName") as? String, "second", "\(backend)")
            }
        }
    }

    func testADerivationThatCannotBeComputedIsAModelError() {
        let cases: [(String, AttributeType, String)] = [
            ("items.@avg.bytes", .double, "not a derivation"),
            ("nope.@count", .integer64, "not a to-many"),
            ("folder.name", .string, "not a to-one"),
            ("lowercase:(bytes)", .string, "String attribute"),
            ("size + 1", .integer64, "not a derivation"),
        ]
        for (expression, type, message) in cases {
            XCTAssertThrowsError(try ManagedObjectModel {
                EntityDescription("Folder") {
                    .attribute("bytes", .integer64)
                    .attribute("derived", type, derivation: expression)
                    .toMany("items", destination: "Folder", inverse: "items")
                }
            }, expression) { error in
                let error = error as? ModelError
                XCTAssertEqual(error?.code, .invalidDerivation, expression)
                XCTAssertEqual(error?.key, "derived", expression)
                XCTAssertTrue(error?.message.contains(message) == true, "\(expression): \(String(describing: error))")
            }
        }
    }

    func testDerivationsParseToTheirForms() {
        XCTAssertEqual(AttributeDerivation(parsing: "now()"), .now)
        XCTAssertEqual(AttributeDerivation(parsing: "children.@count"), .count(relationship: "children"))
        XCTAssertEqual(AttributeDerivation(parsing: "items.@sum.price"), .aggregate(.sum, relationship: "items", key: "price"))
        XCTAssertEqual(AttributeDerivation(parsing: "author.name"), .value(keyPath: ["author", "name"], function: nil))
        XCTAssertEqual(AttributeDerivation(parsing: "canonical:(title)"), .value(keyPath: ["title"], function: .canonical))
        XCTAssertNil(AttributeDerivation(parsing: "a.b.c.d"))
        XCTAssertNil(AttributeDerivation(parsing: "FUNCTION(title, 'length')"))
    }
}
