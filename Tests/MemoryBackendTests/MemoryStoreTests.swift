import Foundation
import MemoryBackend
import StoreCore
import StoreTestSupport
import XCTest

/// The in-memory store on its own: snapshots in, snapshots out, all-or-nothing saves.
final class MemoryStoreTests: XCTestCase {
    private func store() throws -> AtomicStore {
        try MemoryStore.open(PersistentStoreLoadRequest(description: PersistentStoreDescription(type: .inMemory), model: BlogModel.make()))
    }

    func testSaveFetchAndRelationshipsByID() throws {
        let store = try store()
        let ids = try store.newObjectIDs(forEntityNames: ["Post", "Comment"])
        XCTAssertEqual(ids.map(\.primaryKey), [1, 2])
        var changes = StoreChangeSet()
        changes.inserted = [
            try StoreSnapshot(objectID: ids[0], version: 0, entity: store.model.entity(named: "Post"), values: ["title": "Hello", "views": 3], toMany: ["comments": [ids[1]]]),
            try StoreSnapshot(objectID: ids[1], version: 0, entity: store.model.entity(named: "Comment"), values: ["text": "Hi", "post": .objectID(ids[0])]),
        ]
        try store.save(changes)
        XCTAssertEqual(try store.snapshot(for: ids[0])?.version, 1)
        XCTAssertEqual(try store.objectIDs(forRelationship: "comments", of: ids[0]), [ids[1]])
        var request = StoreFetchRequest(entityName: "Comment", resultType: .managedObjectID)
        request.predicate = .comparison(StoreComparison(.keyPath("post.title"), .equalTo, .constant("Hello")))
        guard case .objectIDs(let found) = try store.execute(request) else { return XCTFail() }
        XCTAssertEqual(found, [ids[1]])
    }

    func testStaleVersionsAreRefusedAndNothingIsApplied() throws {
        let store = try store()
        let ids = try store.newObjectIDs(forEntityNames: ["Post", "Post"])
        var insert = StoreChangeSet()
        let post = try store.model.entity(named: "Post")
        insert.inserted = try ids.map { try StoreSnapshot(objectID: $0, version: 0, entity: post, values: ["title": "v1"]) }
        try store.save(insert)

        var mixed = StoreChangeSet()
        var fresh = StoreSnapshot.partial(objectID: ids[0], version: 1, entity: post)
        fresh["title"] = "fresh"
        var stale = StoreSnapshot.partial(objectID: ids[1], version: 7, entity: post)
        stale["title"] = "stale"
        mixed.updated = [fresh, stale]
        XCTAssertThrowsError(try store.save(mixed)) { error in
            XCTAssertEqual((error as? MergeConflictError)?.conflicts.map(\.objectID), [ids[1]])
        }
        XCTAssertEqual(try store.snapshot(for: ids[0])?["title"], "v1", "the valid half was not applied either")
    }

    func testStoresAreIsolatedAndReadOnlyIsHonoured() throws {
        let a = try store()
        let b = try store()
        XCTAssertNotEqual(a.identifier, b.identifier)
        let id = try a.newObjectIDs(forEntityNames: ["Post"])[0]
        var changes = StoreChangeSet()
        changes.inserted = [try StoreSnapshot(objectID: id, version: 0, entity: a.model.entity(named: "Post"), values: ["title": "A"])]
        XCTAssertThrowsError(try b.save(changes)) { XCTAssertEqual(($0 as? StoreError)?.code, .wrongStore) }
        try a.save(changes)
        guard case .count(let n) = try b.execute(StoreFetchRequest(entityName: "Post", resultType: .count)) else { return XCTFail() }
        XCTAssertEqual(n, 0)

        var description = PersistentStoreDescription(type: .inMemory)
        description.isReadOnly = true
        let readOnly = try MemoryStore.open(PersistentStoreLoadRequest(description: description, model: BlogModel.make()))
        XCTAssertThrowsError(try readOnly.save(StoreChangeSet())) { XCTAssertEqual(($0 as? StoreError)?.code, .readOnly) }
    }

    func testManyContainersCanBeCreatedQuickly() throws {
        // Not a timing test: 200 containers on one model each load their own empty store.
        let model = try BlogModel.make()
        var identifiers = Set<String>()
        for _ in 0..<200 {
            let container = try TestStack.container(model)
            identifiers.insert(container.persistentStoreCoordinator.persistentStores[0].identifier)
        }
        XCTAssertEqual(identifiers.count, 200)
    }
}
