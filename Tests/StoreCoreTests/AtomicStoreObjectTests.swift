import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// The atomic file form laid out by the entity: built by index or by name, it says the same
/// thing; what the layout cannot hold stays by name and the engine refuses it with the same
/// error as any file that says it.
final class AtomicStoreObjectTests: XCTestCase {
    private func index(_ name: String, of entity: EntityDescription) throws -> Int {
        try XCTUnwrap(entity.propertyIndexes[name], "no property \(name)")
    }

    /// The engine's check of `objects`, as when a store file holding them is loaded.
    private func loadError(_ objects: [AtomicStoreObject], model: ManagedObjectModel) -> StoreError? {
        let file = AtomicStoreFile(metadata: StoreMetadata(storeType: "test"), nextPrimaryKey: 100, objects: objects)
        do {
            _ = try SnapshotGraph(file: file, model: model, storeIdentifier: "S", url: nil)
            return nil
        } catch {
            return error
        }
    }

    func testAnObjectBuiltByIndexSaysWhatTheSameObjectBuiltByNameSays() throws {
        let model = try BlogModel.make()
        let post = try model.entity(named: "Post")
        var byIndex = AtomicStoreObject(entity: post, primaryKey: 7)
        byIndex[try index("title", of: post)] = "Hello"
        byIndex[try index("views", of: post)] = 3
        byIndex.setTargetKey(3, at: try index("author", of: post))
        byIndex.setKeys([9, 8], at: try index("photos", of: post))
        let byName = AtomicStoreObject(
            entityName: "Post", primaryKey: 7, attributes: ["title": "Hello", "views": 3, "image": .null],
            relationships: ["author": [3], "photos": [9, 8], "tags": []])
        let validated = try AtomicStoreObject(
            entity: post, primaryKey: 7, attributes: ["title": "Hello", "views": 3], relationships: ["author": [3], "photos": [9, 8]])

        XCTAssertTrue(byIndex.entity === post)
        XCTAssertTrue(validated.entity === post)
        XCTAssertNil(byName.entity, "built by name, resolved by the engine")
        XCTAssertEqual(byIndex, byName)
        XCTAssertEqual(byIndex, validated)
        XCTAssertEqual(byIndex.hashValue, byName.hashValue)
        XCTAssertNotEqual(byIndex, AtomicStoreObject(entityName: "Post", primaryKey: 7, attributes: ["title": "Hello"]))
        XCTAssertEqual(byIndex.entityName, "Post")
        XCTAssertEqual(byIndex.attributes, ["title": "Hello", "views": 3])
        XCTAssertEqual(byIndex.relationships, ["author": [3], "photos": [9, 8]])
        XCTAssertEqual(byIndex.keys(at: try index("photos", of: post)), [9, 8], "an ordered to-many keeps its order")
        XCTAssertEqual(byIndex.targetKey(at: try index("author", of: post)), 3)
        XCTAssertEqual(byIndex[try index("image", of: post)], .null)
        XCTAssertEqual(byIndex.description, #"<AtomicStoreObject Post 7 title="Hello" views=3 author=[3] photos=[9,8]>"#)
    }

    func testTheValidatingInitializerRefusesNamesTheEntityDoesNotHave() throws {
        let model = try BlogModel.make()
        let post = try model.entity(named: "Post")
        XCTAssertThrowsError(try AtomicStoreObject(entity: post, primaryKey: 1, attributes: ["colour": "red"])) { error in
            XCTAssertEqual((error as? StoreError)?.code, .unknownProperty)
            XCTAssertTrue("\(error)".contains("'colour': the model's Post has no stored attribute of this name"), "\(error)")
        }
        XCTAssertThrowsError(try AtomicStoreObject(entity: post, primaryKey: 1, attributes: ["comments": "x"])) { error in
            XCTAssertEqual((error as? StoreError)?.code, .unknownProperty, "a to-many is not an attribute")
        }
        XCTAssertThrowsError(try AtomicStoreObject(entity: post, primaryKey: 1, attributes: [:], relationships: ["title": [1]])) { error in
            XCTAssertEqual((error as? StoreError)?.code, .unknownProperty, "an attribute is not a relationship")
        }
        XCTAssertThrowsError(try AtomicStoreObject(entity: post, primaryKey: 1, attributes: [:], relationships: ["author": [1, 2]])) { error in
            XCTAssertEqual((error as? StoreError)?.code, .corrupt)
            XCTAssertTrue("\(error)".contains("a to-one relationship holding 2 objects"), "\(error)")
        }
    }

    func testWhatTheLayoutCannotHoldIsRefusedByTheEngineWithTheSameErrorAsByName() throws {
        let model = try BlogModel.make()
        let post = try model.entity(named: "Post")
        let author = AtomicStoreObject(entityName: "Author", primaryKey: 3, attributes: ["name": "ada"])

        // An unknown name set on a laid-out object keeps it by name.
        var unknown = AtomicStoreObject(entity: post, primaryKey: 1)
        unknown.attributes = ["title": "Hello", "colour": "red"]
        XCTAssertNil(unknown.entity)
        XCTAssertEqual(unknown.attributes, ["title": "Hello", "colour": "red"])
        let byName = AtomicStoreObject(entityName: "Post", primaryKey: 1, attributes: ["title": "Hello", "colour": "red"])
        XCTAssertEqual(loadError([unknown], model: model)?.code, .unknownProperty)
        XCTAssertEqual(loadError([unknown], model: model)?.message, loadError([byName], model: model)?.message)

        // A value written by index where the entity stores none (a to-many's slot).
        var misplaced = AtomicStoreObject(entity: post, primaryKey: 1)
        misplaced[try index("comments", of: post)] = "x"
        XCTAssertEqual(loadError([misplaced], model: model)?.code, .unknownProperty)
        XCTAssertEqual(
            loadError([misplaced], model: model)?.message,
            loadError([AtomicStoreObject(entityName: "Post", primaryKey: 1, attributes: ["comments": "x"])], model: model)?.message)

        // Two keys in a to-one relationship.
        var twoAuthors = AtomicStoreObject(entity: post, primaryKey: 1)
        twoAuthors.setKeys([3, 4], at: try index("author", of: post))
        XCTAssertNil(twoAuthors.entity)
        XCTAssertEqual(twoAuthors.keys(at: try index("author", of: post)), [3, 4])
        let twoAuthorsError = loadError([twoAuthors, author], model: model)
        XCTAssertEqual(twoAuthorsError?.code, .corrupt)
        XCTAssertTrue(twoAuthorsError?.message.contains("a to-one relationship holding 2 objects") == true, "\(String(describing: twoAuthorsError))")

        // A value of the wrong type, and a reference to nothing: caught by the engine in either form.
        var wrongType = AtomicStoreObject(entity: post, primaryKey: 1)
        wrongType[try index("title", of: post)] = 5
        XCTAssertEqual(loadError([wrongType], model: model)?.code, .corrupt)
        XCTAssertEqual(
            loadError([wrongType], model: model)?.message,
            loadError([AtomicStoreObject(entityName: "Post", primaryKey: 1, attributes: ["title": 5])], model: model)?.message)
        var dangling = AtomicStoreObject(entity: post, primaryKey: 1)
        dangling.setTargetKey(9, at: try index("author", of: post))
        XCTAssertEqual(loadError([dangling], model: model)?.code, .danglingReference)
        XCTAssertEqual(
            loadError([dangling], model: model)?.message,
            loadError([AtomicStoreObject(entityName: "Post", primaryKey: 1, relationships: ["author": [9]])], model: model)?.message)
        var wrongDestination = AtomicStoreObject(entity: post, primaryKey: 1)
        wrongDestination.setKeys([3], at: try index("photos", of: post))
        XCTAssertEqual(loadError([wrongDestination, author], model: model)?.code, .danglingReference)

        XCTAssertNil(loadError([AtomicStoreObject(entity: post, primaryKey: 1), author], model: model), "a valid pair loads")
    }

    func testTheEngineHandsFormatsLaidOutObjectsThatReadByName() throws {
        let model = try BlogModel.make()
        let post = try model.entity(named: "Post")
        let book = try model.entity(named: "Book")
        let objects = [
            AtomicStoreObject(entityName: "Author", primaryKey: 3, attributes: ["name": "ada"], relationships: ["posts": [1]]),
            AtomicStoreObject(entityName: "Post", primaryKey: 1, attributes: ["title": "Hello", "views": 2], relationships: ["author": [3], "photos": [5, 4]]),
            AtomicStoreObject(entityName: "Photo", primaryKey: 4, attributes: ["caption": "b"], relationships: ["post": [1]]),
            AtomicStoreObject(entityName: "Photo", primaryKey: 5, attributes: ["caption": "a"], relationships: ["post": [1]]),
            AtomicStoreObject(entityName: "Book", primaryKey: 6, attributes: ["label": "Dune", "isbn": "978"]),
        ]
        let graph = try SnapshotGraph(
            file: AtomicStoreFile(metadata: StoreMetadata(storeType: "test"), objects: objects), model: model, storeIdentifier: "S", url: nil)
        let file = graph.file(metadata: StoreMetadata(storeType: "test"), nextPrimaryKey: 7)

        XCTAssertEqual(file.objects.map(\.primaryKey), [1, 3, 4, 5, 6], "in key order")
        XCTAssertTrue(file.objects.allSatisfy { $0.entity != nil }, "laid out")
        XCTAssertEqual(file.objects.sorted { $0.primaryKey < $1.primaryKey }, objects.sorted { $0.primaryKey < $1.primaryKey })
        let written = try XCTUnwrap(file.objects.first { $0.primaryKey == 1 })
        XCTAssertTrue(written.entity === post)
        XCTAssertEqual(written.targetKey(at: try index("author", of: post)), 3, "a to-one reads as its target's key")
        XCTAssertEqual(written[try index("author", of: post)], .integer(3))
        XCTAssertEqual(written.relationships, ["author": [3], "photos": [5, 4]])
        // A sub-entity's inherited property sits at its parent's index.
        let dune = try XCTUnwrap(file.objects.first { $0.primaryKey == 6 })
        XCTAssertEqual(try index("label", of: book), try index("label", of: model.entity(named: "Item")))
        XCTAssertEqual(dune[try index("label", of: book)], "Dune")
        XCTAssertEqual(dune.attributes, ["label": "Dune", "isbn": "978"])
        // And what the engine wrote loads again unchanged.
        let again = try SnapshotGraph(file: file, model: model, storeIdentifier: "S", url: nil)
        XCTAssertEqual(again.file(metadata: StoreMetadata(storeType: "test"), nextPrimaryKey: 7).objects, file.objects)
    }
}
