import Foundation
import StoreCore
import XCTest

/// What a snapshot holds, as a store written by a user sees it: a complete snapshot holds every
/// stored attribute and to-one, a partial one what was set, and copies never see each other's
/// changes (snapshots are values, whatever they share inside).
final class StoreSnapshotTests: XCTestCase {
    private var model: ManagedObjectModel!
    private var post: EntityDescription!
    private var id: ManagedObjectID!

    override func setUpWithError() throws {
        model = try ManagedObjectModel {
            EntityDescription("Post") {
                .attribute("title", .string)
                .attribute("scratch", .string, transient: true)
                .toOne("author", destination: "Author", inverse: "posts")
            }
            EntityDescription("Author") {
                .attribute("name", .string)
                .toMany("posts", destination: "Post", inverse: "author")
            }
        }
        post = try XCTUnwrap(model.entitiesByName["Post"])
        id = ManagedObjectID(entityName: "Post", storeIdentifier: "S", primaryKey: 7)
    }

    private func index(_ name: String) throws -> Int { try XCTUnwrap(post.propertyIndexes[name]) }

    func testACompleteSnapshotHoldsEveryStoredValueAndWhatIsSetBeyondThem() throws {
        var snapshot = StoreSnapshot(objectID: id, version: 3, entity: post)
        XCTAssertEqual(Set(snapshot.heldProperties), [try index("title"), try index("author")])
        snapshot["title"] = "Misty Morning"
        XCTAssertEqual(snapshot.valuesByName, ["title": .string("Misty Morning")])
        // A transient property is not a stored value: setting it adds it to what is held.
        snapshot[try index("scratch")] = .string("draft")
        XCTAssertEqual(Set(snapshot.heldProperties), [try index("title"), try index("author"), try index("scratch")])
        XCTAssertEqual(snapshot.version, 3)
    }

    func testCopiesOfASnapshotNeverSeeEachOthersChanges() throws {
        var first = StoreSnapshot(objectID: id, version: 1, entity: post)
        first["title"] = "Misty Morning"
        var second = first
        second["title"] = "Harbour Lights"
        second[try index("scratch")] = .string("draft")
        second.version = 2
        XCTAssertEqual(first["title"], .string("Misty Morning"))
        XCTAssertEqual(first.version, 1)
        XCTAssertFalse(first.heldProperties.contains(try index("scratch")))
        XCTAssertEqual(second["title"], .string("Harbour Lights"))
        XCTAssertNotEqual(first, second)
    }

    func testPartialSnapshotsHoldOnlyWhatWasSetEachTheirOwn() throws {
        var update = StoreSnapshot.partial(objectID: id, version: 4, entity: post)
        let deletion = StoreSnapshot.partial(objectID: id, version: 4, entity: post)
        XCTAssertTrue(update.heldProperties.isEmpty)
        update["title"] = "Misty Morning"
        XCTAssertEqual(Array(update.heldProperties), [try index("title")])
        XCTAssertEqual(update.heldValues.map(\.value), [.string("Misty Morning")])
        // Every snapshot that holds nothing starts alike; changing one leaves the others empty.
        XCTAssertTrue(deletion.heldProperties.isEmpty)
        XCTAssertTrue(StoreSnapshot.partial(objectID: id, version: 5, entity: post).heldProperties.isEmpty)
    }

    /// The updates of one save that change the same attributes share what they hold; a change to
    /// one of them must stay its own.
    func testUpdatesHoldingTheSamePropertiesStayApartWhenOneChanges() throws {
        let title = try index("title"), author = try index("author")
        var values = post.layout.nullValues
        values[title] = .string("Misty Morning")
        var held = PropertyMask()
        held.insert(title)
        var shared = StoreSnapshot.SharedHolding()
        let first = StoreSnapshot(objectID: id, version: 1, entity: post, values: values, holding: held, sharing: &shared)
        var second = StoreSnapshot(
            objectID: ManagedObjectID(entityName: "Post", storeIdentifier: "S", primaryKey: 8), version: 1, entity: post,
            values: values, holding: held, sharing: &shared)
        XCTAssertEqual(first.heldProperties, second.heldProperties)
        second[author] = .objectID(ManagedObjectID(entityName: "Author", storeIdentifier: "S", primaryKey: 1))
        XCTAssertEqual(Array(first.heldProperties), [title])
        XCTAssertEqual(Array(second.heldProperties), [title, author].sorted())
        XCTAssertEqual(first[author], .null)
    }

    func testToManyRelationshipsAreHeldApartAndMergedIntoACopy() throws {
        let author = try XCTUnwrap(model.entitiesByName["Author"])
        let authorID = ManagedObjectID(entityName: "Author", storeIdentifier: "S", primaryKey: 1)
        var stored = StoreSnapshot(objectID: authorID, version: 1, entity: author)
        stored["name"] = "Ada"
        let before = stored
        var update = StoreSnapshot.partial(objectID: authorID, version: 1, entity: author)
        update.setToMany([id], forKey: "posts")
        stored.merge(update)
        XCTAssertEqual(stored.toMany(forKey: "posts"), [id])
        XCTAssertTrue(stored.holdsToMany)
        XCTAssertEqual(stored["name"], .string("Ada"))
        XCTAssertNil(before.toMany(forKey: "posts"))
        XCTAssertFalse(before.holdsToMany)
    }
}
