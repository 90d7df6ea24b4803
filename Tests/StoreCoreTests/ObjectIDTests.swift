import Foundation
import StoreCore
import StoreTestSupport
import XCTest

final class ObjectIDTests: XCTestCase {
    func testIDsAreTemporaryUntilSaveThenPermanentAndRoundTripAsURIs() throws {
        let container = try TestStack.container()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let post = try Post(context: context)
            post.title = "Hello"
            let temporary = post.objectID
            XCTAssertTrue(temporary.isTemporaryID)
            XCTAssertTrue(temporary.uriRepresentation.absoluteString.hasPrefix("x-coredata:///Post/t"))
            XCTAssertEqual(ManagedObjectID(uriRepresentation: temporary.uriRepresentation), temporary)
            try context.save()
            let permanent = post.objectID
            XCTAssertFalse(permanent.isTemporaryID)
            XCTAssertNotEqual(permanent, temporary)
            let store = try XCTUnwrap(container.persistentStoreCoordinator.persistentStores.first)
            XCTAssertEqual(permanent.uriRepresentation.absoluteString, "x-coredata://\(store.identifier)/Post/p\(permanent.primaryKey ?? 0)")
            let again = container.persistentStoreCoordinator.managedObjectID(forURIRepresentation: permanent.uriRepresentation)
            XCTAssertEqual(again, permanent)
            XCTAssertTrue(try context.existingObject(with: XCTUnwrap(again)) === post)
            XCTAssertTrue(context.registeredObject(for: permanent) === post)
        }
    }

    /// Sets and dictionaries hash IDs without a `Hasher` (`_rawHashValue`): equal IDs must meet
    /// there however they were made, and different ones stay apart.
    func testEqualIDsMadeSeparatelyMeetInSetsAndDictionaries() {
        let keys = Int64(1)...20_000
        let ids = keys.map { ManagedObjectID(entityName: "Post", storeIdentifier: "A", primaryKey: $0) }
        let set = Set(ids)
        XCTAssertEqual(set.count, ids.count)
        let prototype = ManagedObjectID(entityName: "Post", storeIdentifier: "A", primaryKey: 1)
        var byID: [ManagedObjectID: Int64] = [:]
        for key in keys { byID[ManagedObjectID(primaryKey: key, sameEntityAndStoreAs: prototype)] = key }
        for key in keys {
            let again = ManagedObjectID(entityName: "Post", storeIdentifier: "A", primaryKey: key)
            XCTAssertTrue(set.contains(again), "key \(key)")
            XCTAssertEqual(byID[again], key)
            XCTAssertEqual(again.hashValue, ids[Int(key - 1)].hashValue)
        }
        XCTAssertFalse(set.contains(ManagedObjectID(entityName: "Post", storeIdentifier: "B", primaryKey: 1)))
        XCTAssertFalse(set.contains(ManagedObjectID(entityName: "Tag", storeIdentifier: "A", primaryKey: 1)))
        XCTAssertFalse(set.contains(ManagedObjectID(entityName: "Post", storeIdentifier: "A", primaryKey: 20_001)))
        XCTAssertEqual(Set(ids + ids.map { ManagedObjectID(primaryKey: $0.primaryKey ?? 0, sameEntityAndStoreAs: prototype) }).count, ids.count)
    }

    func testForeignOrMalformedURIsAreRejected() throws {
        let container = try TestStack.container()
        let coordinator = container.persistentStoreCoordinator
        XCTAssertNil(coordinator.managedObjectID(forURIRepresentation: URL(string: "x-coredata://OTHER-STORE/Post/p1")!))
        XCTAssertNil(coordinator.managedObjectID(forURIRepresentation: URL(string: "https://example.com/Post/p1")!))
        XCTAssertNil(ManagedObjectID(uriRepresentation: URL(string: "x-coredata://S/Post/q1")!))
        XCTAssertNil(ManagedObjectID(uriRepresentation: URL(string: "x-coredata://S/Post/p-4")!))
        let store = try XCTUnwrap(coordinator.persistentStores.first)
        XCTAssertNil(coordinator.managedObjectID(forURIRepresentation: URL(string: "x-coredata://\(store.identifier)/Nope/p1")!))
    }

    func testExistingObjectReportsMissingObjects() throws {
        let container = try TestStack.container()
        let store = try XCTUnwrap(container.persistentStoreCoordinator.persistentStores.first)
        let context = container.newBackgroundContext()
        let ghost = ManagedObjectID(entityName: "Post", storeIdentifier: store.identifier, primaryKey: 999)
        try context.performAndWait {
            XCTAssertThrowsError(try context.existingObject(with: ghost)) { error in
                XCTAssertEqual((error as? StoreError)?.code, .objectNotFound)
            }
            // object(with:) hands out a fault; by default (shouldDeleteInaccessibleFaults) it fires
            // as a deleted object with empty values.
            let fault = try? context.object(with: ghost)
            XCTAssertEqual(fault?.isFault, true)
            XCTAssertEqual(try fault?.value(forKey: "title") as? String, nil)
            XCTAssertEqual(fault?.isDeleted, true)
            XCTAssertFalse(context.hasChanges, "an inaccessible fault is not a deletion to save")
            // With the switch off, reading it reports the missing object instead.
            context.reset()
            context.shouldDeleteInaccessibleFaults = false
            let reported = try? context.object(with: ghost)
            XCTAssertThrowsError(try reported?.value(forKey: "title")) { error in
                XCTAssertEqual((error as? StoreError)?.code, .objectNotFound)
            }
            XCTAssertThrowsError(try context.object(with: ManagedObjectID(entityName: "Nope", storeIdentifier: store.identifier, primaryKey: 1)))
        }
    }
}
