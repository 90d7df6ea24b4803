import Foundation
@testable import StoreCore
import StoreTestSupport
import XCTest

/// Batched results hold their IDs compactly; every ID must come back as it went in.
final class CompactObjectIDListTests: XCTestCase {
    func testIDsOfOneOrSeveralSpacesComeBackUnchanged() {
        let posts = (1...5).map { ManagedObjectID(entityName: "Post", storeIdentifier: "A", primaryKey: $0) }
        let tags = (1...3).map { ManagedObjectID(entityName: "Tag", storeIdentifier: "A", primaryKey: $0) }
        let otherStore = ManagedObjectID(entityName: "Post", storeIdentifier: "B", primaryKey: 1)
        // Equal spaces made separately (as a store using the public initializer makes them).
        let samePostAgain = ManagedObjectID(entityName: "Post", storeIdentifier: "A", primaryKey: 9)
        let temporary = ManagedObject(entity: EntityDescription("Draft"), insertInto: nil).objectID
        for ids in [[], posts, posts + tags, tags + posts + [otherStore, samePostAgain, temporary], [temporary] + posts] {
            let list = CompactObjectIDList(ids)
            XCTAssertEqual(Array(list), ids)
            XCTAssertEqual(list.map(\.isTemporaryID), ids.map(\.isTemporaryID))
            XCTAssertEqual(list.map(\.uriRepresentation), ids.map(\.uriRepresentation))
        }
    }

    func testABuilderFedKeysAndPrototypesGivesTheIDsAStoreWouldMake() {
        let post = ManagedObjectID(entityName: "Post", storeIdentifier: "A", primaryKey: 1)
        let tag = ManagedObjectID(entityName: "Tag", storeIdentifier: "A", primaryKey: 1)
        let temporary = ManagedObject(entity: EntityDescription("Draft"), insertInto: nil).objectID
        let rows: [(key: Int64, prototype: ManagedObjectID)] = [(3, post), (4, post), (9, tag), (5, post), (2, temporary)]
        var builder = CompactObjectIDList.Builder()
        for row in rows { builder.append(key: row.key, sameEntityAndStoreAs: row.prototype) }
        let expected = rows.map { ManagedObjectID(primaryKey: $0.key, sameEntityAndStoreAs: $0.prototype) }
        XCTAssertEqual(Array(builder.list), expected)
        XCTAssertEqual(builder.list.map(\.primaryKey), [3, 4, 9, 5, 2])
        XCTAssertEqual(builder.list.map(\.entityName), ["Post", "Post", "Tag", "Post", "Draft"])
        XCTAssertEqual(Array(CompactObjectIDList.Builder().list), [])
    }

    func testKeysInRunsAndOutOfOrderComeBackUnchanged() {
        // Runs longer and shorter than a chunk (4,096), a run broken inside a chunk, keys
        // descending, a repeated key.
        let keys: [Int64] = Array(1...10_000) + [20_000, 20_002] + Array((30_000...35_000).reversed()) + [7, 7] + Array(40_000...41_000)
        var compact = CompactKeys()
        for key in keys { compact.append(key) }
        XCTAssertEqual(compact.count, keys.count)
        XCTAssertEqual((0..<keys.count).map { compact[$0] }, keys)
        XCTAssertEqual(Array(compact), keys, "walked in order, a chunk at a time")
        let post = ManagedObjectID(entityName: "Post", storeIdentifier: "A", primaryKey: 1)
        let ids = keys.map { ManagedObjectID(primaryKey: $0, sameEntityAndStoreAs: post) }
        XCTAssertEqual(Array(CompactObjectIDList(ids)), ids)
    }

    /// Walking a list gives what reading it by position gives, for every way it holds its IDs.
    func testWalkingAListGivesEachIDInOrder() {
        let post = ManagedObjectID(entityName: "Post", storeIdentifier: "A", primaryKey: 1)
        let tag = ManagedObjectID(entityName: "Tag", storeIdentifier: "A", primaryKey: 1)
        let posts = (Array(1...5_000) + [9_000, 8_999]).map { ManagedObjectID(primaryKey: Int64($0), sameEntityAndStoreAs: post) }
        let mixed = posts.prefix(10) + [ManagedObjectID(primaryKey: 3, sameEntityAndStoreAs: tag)] + posts.suffix(3)
        for list in [CompactObjectIDList(posts), CompactObjectIDList(Array(mixed)), CompactObjectIDList(holding: Array(mixed)), CompactObjectIDList([])] {
            var walked: [ManagedObjectID] = []
            var iterator = list.makeIterator()
            while let id = iterator.next() { walked.append(id) }
            XCTAssertEqual(walked, (0..<list.count).map { list[$0] })
            XCTAssertNil(iterator.next(), "an iterator at its end stays there")
        }
    }

    func testBatchedFetchLeavesOutAnObjectThatIsNotOfTheResultClass() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            let typed = try Post(context: context)
            typed.title = "typed"
            let entity = try XCTUnwrap(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Post"])
            let untyped = ManagedObject(entity: entity, insertInto: context)
            try untyped.setValue("untyped", forKey: "title")
            var request = FetchRequest<Post>()
            request.fetchBatchSize = 1
            let results = try context.fetchBatched(request)
            XCTAssertEqual(results.map(\.title), ["typed"], "the plain ManagedObject is not a Post")
            XCTAssertEqual(try context.fetch(FetchRequest<ManagedObject>(entityName: "Post")).count, 2)
        }
    }
}
