import BinaryBackend
import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// Stores saved through a container and a context, closed, and opened again in a new
/// coordinator: every attribute type and every relationship kind comes back, object by object.
final class BinaryStoreRoundTripTests: XCTestCase {
    /// Every object of every entity of a coordinator's store, as the store holds them.
    private struct StoredObject {
        var values: [String: StoreValue]
        var toMany: [String: [ManagedObjectID]]
        subscript(key: String) -> StoreValue { values[key] ?? .null }
    }

    private func storeObjects(_ container: PersistentContainer) throws -> [ManagedObjectID: StoredObject] {
        let store = try XCTUnwrap(container.persistentStoreCoordinator.persistentStores.first)
        var snapshots: [ManagedObjectID: StoredObject] = [:]
        for entity in container.managedObjectModel.entities where !entity.isAbstract {
            var request = StoreFetchRequest(entityName: entity.name)
            request.includesSubentities = false
            guard case .snapshots(let found) = try store.execute(request) else { XCTFail("no snapshots"); continue }
            for snapshot in found {
                snapshots[snapshot.objectID] = StoredObject(
                    values: snapshot.valuesByName, toMany: snapshot.toManyByName.filter { !$0.value.isEmpty })
            }
        }
        return snapshots
    }

    func testEveryAttributeTypeAndRelationshipKindSurvivesReopening() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Specimens.binary")
        let model = try SpecimenModel.make()
        let saved: [ManagedObjectID: StoredObject]
        do {
            let container = try TestStack.binaryContainer(model, at: url)
            let context = container.newBackgroundContext()
            try context.performAndWait {
                var specimens: [ManagedObject] = []
                for row in SpecimenModel.edgeRows {
                    let specimen = try context.insertNewObject(forEntityName: "Specimen")
                    for (key, value) in row { try specimen.setStoreValue(value, forKey: key) }
                    specimens.append(specimen)
                }
                let root = specimens[0]
                for child in specimens.dropFirst() {
                    try child.setValue(root, forKey: "parent")
                }
                let labels = try ["red", "blue", "green"].map { name in
                    let label = try context.insertNewObject(forEntityName: "Label")
                    try label.setValue(name, forKey: "name")
                    return label
                }
                try root.setValue(Set(labels), forKey: "labels")
                try specimens[1].setValue(Set(labels.prefix(2)), forKey: "labels")
                let pages = try [3, 1, 2].map { number in
                    let page = try context.insertNewObject(forEntityName: "Page")
                    try page.setValue(Int32(number), forKey: "number")
                    return page
                }
                try root.setValue(pages, forKey: "pages")
                let circle = try context.insertNewObject(forEntityName: "Circle")
                try circle.setValue(2.5, forKey: "radius")
                let square = try context.insertNewObject(forEntityName: "Square")
                try square.setValue(Int64(4), forKey: "side")
                try root.setValue(Set([circle, square]), forKey: "shapes")
                try context.obtainPermanentIDs(for: [labels[0]])
                try specimens[2].setStoreValue(.objectID(labels[0].objectID), forKey: "reference")
                try context.save()
            }
            saved = try storeObjects(container)
        }
        let container = try TestStack.binaryContainer(model, at: url)
        let loaded = try storeObjects(container)
        XCTAssertEqual(Set(saved.keys), Set(loaded.keys))
        XCTAssertEqual(saved.count, SpecimenModel.edgeRows.count + 3 + 3 + 2)
        for (id, snapshot) in saved {
            guard let other = loaded[id] else { continue }
            XCTAssertEqual(Set(snapshot.values.keys), Set(other.values.keys), "\(id)")
            for (key, value) in snapshot.values {
                XCTAssertTrue(exactlyEqual(value, other[key]), "\(id).\(key): \(value) became \(other[key])")
            }
            XCTAssertEqual(snapshot.toMany, other.toMany, "\(id)")
        }
        // Through a context: the ordered relationship keeps its order, sub-entities come back as themselves.
        let context = container.newBackgroundContext()
        try context.performAndWait {
            var request = FetchRequest<ManagedObject>(entityName: "Page")
            request.sortDescriptors = [.ascending("number")]
            let root = try XCTUnwrap(context.fetch(request).first?.value(forKey: "specimen") as? ManagedObject)
            let pages = try XCTUnwrap(root.value(forKey: "pages") as? [ManagedObject])
            XCTAssertEqual(try pages.map { try $0.value(forKey: "number") as? Int64 }, [3, 1, 2])
            let shapes = try XCTUnwrap(root.value(forKey: "shapes") as? Set<ManagedObject>)
            XCTAssertEqual(Set(shapes.map(\.entity.name)), ["Circle", "Square"])
            XCTAssertEqual(try context.count(for: FetchRequest<ManagedObject>(entityName: "Shape")), 2)
        }
    }

    func testBlogStoreSavesReopensAndSavesAgain() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Blog.binary")
        do {
            let context = try TestStack.binaryContainer(at: url).newBackgroundContext()
            try context.performAndWait {
                let author = try Author(context: context)
                author.name = "ada"
                let post = try Post(context: context)
                post.title = "Misty Morning"
                post.views = 42
                post.author = author
                let tag = try Tag(context: context)
                tag.name = "fog"
                post.tags.insert(tag)
                post.photos = try ["c", "a", "b"].map { caption in
                    let photo = try Photo(context: context)
                    photo.caption = caption
                    return photo
                }
                let book = try context.insertNewObject(forEntityName: "Book")
                try book.setValue("978-0", forKey: "isbn")
                try context.save()
            }
        }
        do {
            let context = try TestStack.binaryContainer(at: url).newBackgroundContext()
            try context.performAndWait {
                let post = try XCTUnwrap(context.fetch(FetchRequest<Post>()).first)
                XCTAssertEqual(post.title, "Misty Morning")
                XCTAssertEqual(post.author?.name, "ada")
                XCTAssertEqual(post.tags.map(\.name), ["fog"])
                XCTAssertEqual(post.photos.map(\.caption), ["c", "a", "b"])
                XCTAssertEqual(try context.count(for: FetchRequest<ManagedObject>(entityName: "Item")), 1)
                post.views = 43
                context.delete(post.photos[1])
                try context.save()
            }
        }
        let context = try TestStack.binaryContainer(at: url).newBackgroundContext()
        try context.performAndWait {
            let post = try XCTUnwrap(context.fetch(FetchRequest<Post>()).first)
            XCTAssertEqual(post.views, 43)
            XCTAssertEqual(post.photos.map(\.caption), ["c", "b"])
        }
    }
}
