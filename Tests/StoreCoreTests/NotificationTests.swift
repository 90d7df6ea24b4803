import Foundation
import StoreCore
import StoreTestSupport
import XCTest

final class NotificationTests: XCTestCase {
    /// Collects notifications posted by one context.
    private final class Recorder: @unchecked Sendable {
        // @unchecked: notifications are posted synchronously on the context's queue, which the
        // test waits on before reading.
        var notes: [Notification] = []
        var tokens: [NSObjectProtocol] = []
        init(_ context: ManagedObjectContext, names: [Notification.Name]) {
            for name in names {
                tokens.append(NotificationCenter.default.addObserver(forName: name, object: context, queue: nil) { [unowned self] in
                    self.notes.append($0)
                })
            }
        }
        deinit { tokens.forEach(NotificationCenter.default.removeObserver) }
        func last(_ name: Notification.Name) -> Notification? { notes.last { $0.name == name } }
    }

    func testDidSaveCarriesObjectsAndObjectIDs() throws {
        let context = try TestStack.context()
        let recorder = Recorder(context, names: [.managedObjectContextWillSave, .managedObjectContextDidSave, .managedObjectContextDidSaveObjectIDs, .managedObjectContextObjectsDidChange])
        try context.performAndWait {
            let post = try Post(context: context)
            post.title = "Notify"
            let doomed = try Post(context: context)
            doomed.title = "Doomed"
            try context.save()

            let saved = try XCTUnwrap(recorder.last(.managedObjectContextDidSave))
            typealias Key = ManagedObjectContext.NotificationKey
            XCTAssertEqual(saved.userInfo?[Key.insertedObjects.rawValue] as? Set<ManagedObject>, [post, doomed])
            XCTAssertEqual(saved.contextChanges?.insertedObjectIDs, [post.objectID, doomed.objectID])
            XCTAssertFalse(saved.contextChanges?.insertedObjectIDs.contains { $0.isTemporaryID } ?? true, "IDs are permanent")
            XCTAssertNotNil(recorder.last(.managedObjectContextWillSave))

            post.title = "Updated"
            context.delete(doomed)
            let doomedID = doomed.objectID
            try context.save()
            let second = try XCTUnwrap(recorder.last(.managedObjectContextDidSave))
            XCTAssertEqual(second.userInfo?[Key.updatedObjects.rawValue] as? Set<ManagedObject>, [post])
            XCTAssertEqual(second.userInfo?[Key.deletedObjects.rawValue] as? Set<ManagedObject>, [doomed])
            let ids = try XCTUnwrap(recorder.last(.managedObjectContextDidSaveObjectIDs))
            XCTAssertEqual(ids.userInfo?[Key.deletedObjectIDs.rawValue] as? Set<ManagedObjectID>, [doomedID])
            XCTAssertEqual(ids.userInfo?[Key.updatedObjectIDs.rawValue] as? Set<ManagedObjectID>, [post.objectID])

            let changed = recorder.notes.filter { $0.name == .managedObjectContextObjectsDidChange }
            XCTAssertTrue(changed.contains { ($0.userInfo?[Key.deletedObjects.rawValue] as? Set<ManagedObject>)?.contains(doomed) == true })
        }
    }

    /// Objects-did-change carries objects, as Core Data's: its ID sets are in `contextChanges`
    /// only (made when read), while did-save and did-save-ObjectIDs carry the IDs in `userInfo`.
    func testObjectsDidChangeCarriesObjectsAndNoIDSets() throws {
        let context = try TestStack.context()
        let recorder = Recorder(context, names: [.managedObjectContextObjectsDidChange, .managedObjectContextDidSave])
        try context.performAndWait {
            let post = try Post(context: context)
            post.title = "Objects only"
            let temporaryID = post.objectID
            context.processPendingChanges()
            typealias Key = ManagedObjectContext.NotificationKey
            let changed = try XCTUnwrap(recorder.last(.managedObjectContextObjectsDidChange))
            XCTAssertEqual(changed.userInfo?[Key.insertedObjects.rawValue] as? Set<ManagedObject>, [post])
            for key in [Key.insertedObjectIDs, .updatedObjectIDs, .deletedObjectIDs] {
                XCTAssertNil(changed.userInfo?[key.rawValue], "\(key) is not in objects-did-change")
            }
            XCTAssertEqual(changed.contextChanges?.insertedObjectIDs, [temporaryID])
            try context.save()
            let saved = try XCTUnwrap(recorder.last(.managedObjectContextDidSave))
            XCTAssertEqual(saved.userInfo?[Key.insertedObjectIDs.rawValue] as? Set<ManagedObjectID>, [post.objectID])
        }
    }

    /// An object deleted, inserted again and deleted again before the changes are processed is
    /// reported once among the deleted objects, and saved (and reported) as deleted once.
    func testObjectDeletedTwiceBeforeProcessingIsReportedOnce() throws {
        let context = try TestStack.context()
        let recorder = Recorder(context, names: [.managedObjectContextObjectsDidChange, .managedObjectContextDidSave])
        try context.performAndWait {
            let twice = try Post(context: context)
            twice.title = "Twice"
            let once = try Post(context: context)
            once.title = "Once"
            let kept = try Post(context: context)
            kept.title = "Kept"
            try context.save()

            context.delete(twice)
            context.insert(twice)
            XCTAssertFalse(twice.isDeleted)
            context.delete(twice)
            context.delete(once)
            kept.title = "Changed"
            context.processPendingChanges()

            typealias Key = ManagedObjectContext.NotificationKey
            let changed = try XCTUnwrap(recorder.last(.managedObjectContextObjectsDidChange))
            XCTAssertEqual(changed.userInfo?[Key.deletedObjects.rawValue] as? Set<ManagedObject>, [twice, once])
            XCTAssertEqual(changed.contextChanges?.deletedObjectIDs, [twice.objectID, once.objectID])
            XCTAssertEqual(changed.userInfo?[Key.updatedObjects.rawValue] as? Set<ManagedObject>, [kept])
            XCTAssertEqual(context.deletedObjects.count, 2)

            let ids = (twice.objectID, once.objectID)
            try context.save()
            let saved = try XCTUnwrap(recorder.last(.managedObjectContextDidSave))
            XCTAssertEqual(saved.userInfo?[Key.deletedObjects.rawValue] as? Set<ManagedObject>, [twice, once])
            XCTAssertEqual(saved.contextChanges?.deletedObjectIDs, [ids.0, ids.1])
            XCTAssertNil(twice.managedObjectContext, "a saved deletion leaves the context")
            XCTAssertNil(context.registeredObject(for: ids.0))
        }
    }

    /// A new object deleted before the changes are processed is not reported as inserted, and
    /// one changed after its insertion is reported once, as inserted only.
    func testNewObjectsAreReportedInsertedOnceAndOnlyWhileInserted() throws {
        let context = try TestStack.context()
        let recorder = Recorder(context, names: [.managedObjectContextObjectsDidChange])
        try context.performAndWait {
            let gone = try Post(context: context)
            gone.title = "Gone"
            let kept = try Post(context: context)
            kept.title = "Kept"
            context.delete(gone)
            kept.title = "Kept, changed"
            context.processPendingChanges()

            typealias Key = ManagedObjectContext.NotificationKey
            let changed = try XCTUnwrap(recorder.last(.managedObjectContextObjectsDidChange))
            XCTAssertEqual(changed.userInfo?[Key.insertedObjects.rawValue] as? Set<ManagedObject>, [kept])
            XCTAssertEqual(changed.contextChanges?.insertedObjectIDs, [kept.objectID])
            XCTAssertEqual(changed.userInfo?[Key.updatedObjects.rawValue] as? Set<ManagedObject>, [])
            XCTAssertEqual(context.insertedObjects, [kept])

            kept.title = "Kept, changed again"
            context.processPendingChanges()
            let again = try XCTUnwrap(recorder.last(.managedObjectContextObjectsDidChange))
            XCTAssertEqual(again.userInfo?[Key.insertedObjects.rawValue] as? Set<ManagedObject>, [])
            XCTAssertEqual(again.userInfo?[Key.updatedObjects.rawValue] as? Set<ManagedObject>, [kept], "a change after the insertion was reported")
        }
    }

    /// An object changed several times between two objects-did-change is reported once, and
    /// again after its next change — also after a rollback threw its change away.
    func testUpdatedObjectsAreReportedOnceEachAndAgainAfterTheirNextChange() throws {
        let context = try TestStack.context()
        let recorder = Recorder(context, names: [.managedObjectContextObjectsDidChange])
        try context.performAndWait {
            let a = try Post(context: context)
            a.title = "A"
            let b = try Post(context: context)
            b.title = "B"
            try context.save()
            typealias Key = ManagedObjectContext.NotificationKey
            func lastUpdated() -> Set<ManagedObject>? {
                recorder.last(.managedObjectContextObjectsDidChange)?.userInfo?[Key.updatedObjects.rawValue] as? Set<ManagedObject>
            }

            a.title = "A1"
            b.title = "B1"
            a.title = "A2"
            context.processPendingChanges()
            XCTAssertEqual(lastUpdated(), [a, b])
            XCTAssertEqual(recorder.last(.managedObjectContextObjectsDidChange)?.contextChanges?.updatedObjectIDs, [a.objectID, b.objectID])

            b.title = "B2"
            context.processPendingChanges()
            XCTAssertEqual(lastUpdated(), [b])

            a.title = "A3"
            context.rollback()
            a.title = "A4"
            context.processPendingChanges()
            XCTAssertEqual(lastUpdated(), [a], "listed again after the rollback")
        }
    }

    func testChangesAreAvailableAsAnAsyncSequence() async throws {
        let context = try TestStack.context()
        let stream = context.changes(of: .didSave)
        try await context.perform {
            let post = try Post(context: context)
            post.title = "Async"
            try context.save()
        }
        var iterator = stream.makeAsyncIterator()
        let first = await iterator.next()
        XCTAssertEqual(first?.kind, .didSave)
        XCTAssertEqual(first?.insertedObjectIDs.count, 1)
        XCTAssertEqual(first?.insertedObjectIDs.first?.entityName, "Post")
    }

    func testMergeChangesFromContextDidSaveRefreshesAndRemoves() throws {
        let container = try TestStack.container()
        let writer = container.newBackgroundContext()
        let reader = container.newBackgroundContext()
        let (postID, commentID) = try writer.performAndWait {
            let post = try Post(context: writer)
            post.title = "Before"
            let comment = try Comment(context: writer)
            comment.post = post
            try writer.save()
            return (post.objectID, comment.objectID)
        }
        try reader.performAndWait {
            let post = try XCTUnwrap(reader.existingObject(with: postID) as? Post)
            XCTAssertEqual(post.title, "Before")
            XCTAssertEqual(post.comments.count, 1)
        }
        let recorder = Recorder(writer, names: [.managedObjectContextDidSave])
        try writer.performAndWait {
            let post = try XCTUnwrap(writer.registeredObject(for: postID) as? Post)
            post.title = "After"
            writer.delete(try writer.object(with: commentID))
            try writer.save()
        }
        let note = try XCTUnwrap(recorder.last(.managedObjectContextDidSave))
        try reader.performAndWait {
            reader.mergeChanges(fromContextDidSave: note)
            let post = try XCTUnwrap(reader.registeredObject(for: postID) as? Post)
            XCTAssertEqual(post.title, "After")
            XCTAssertTrue(post.comments.isEmpty)
            XCTAssertNil(reader.registeredObject(for: commentID), "deleted objects leave the context")
        }
    }

    func testAutomaticallyMergesChangesFromOtherContextsAndParent() throws {
        let container = try TestStack.container()
        let writer = container.newBackgroundContext()
        let watcher = container.newBackgroundContext()
        watcher.automaticallyMergesChangesFromParent = true
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = watcher
        child.automaticallyMergesChangesFromParent = true

        let id = try writer.performAndWait {
            let post = try Post(context: writer)
            post.title = "v1"
            try writer.save()
            return post.objectID
        }
        let watched = try watcher.performAndWait { try XCTUnwrap(watcher.existingObject(with: id) as? Post) }
        let childCopy = try child.performAndWait { try XCTUnwrap(child.existingObject(with: id) as? Post) }
        try writer.performAndWait {
            (writer.registeredObject(for: id) as? Post)?.title = "v2"
            try writer.save()
        }
        // The merge is queued on the watcher's queue; a synchronous block behind it sees it done.
        watcher.performAndWait { XCTAssertEqual(watched.title, "v2") }
        try watcher.performAndWait {
            watched.title = "v3"
            try watcher.save()
        }
        child.performAndWait { XCTAssertEqual(childCopy.title, "v3") }
    }

    func testSaveNotificationsReadLaterHoldTheIDsOfTheirMoment() throws {
        let context = try TestStack.context()
        let recorder = Recorder(context, names: [.managedObjectContextWillSave, .managedObjectContextDidSave, .managedObjectContextDidSaveObjectIDs])
        try context.performAndWait {
            let post = try Post(context: context)
            post.title = "Read later"
            let temporaryID = post.objectID
            try context.save()
            typealias Key = ManagedObjectContext.NotificationKey

            // Read only now, after the object got its permanent ID.
            let willSave = try XCTUnwrap(recorder.last(.managedObjectContextWillSave)?.contextChanges)
            XCTAssertEqual(willSave.insertedObjectIDs, [temporaryID])
            XCTAssertFalse(willSave.isEmpty)
            let didSave = try XCTUnwrap(recorder.last(.managedObjectContextDidSave))
            XCTAssertEqual(didSave.userInfo?[Key.insertedObjectIDs.rawValue] as? Set<ManagedObjectID>, [post.objectID])
            XCTAssertEqual(didSave.userInfo?[Key.updatedObjectIDs.rawValue] as? Set<ManagedObjectID>, [])
            XCTAssertEqual(didSave.contextChanges?.insertedObjectIDs, [post.objectID])
            let ids = try XCTUnwrap(recorder.last(.managedObjectContextDidSaveObjectIDs))
            XCTAssertEqual(ids.userInfo?[Key.insertedObjectIDs.rawValue] as? Set<ManagedObjectID>, [post.objectID])
            XCTAssertEqual(ids.contextChanges, didSave.contextChanges)
        }
    }

    func testContextChangesCopiesChangeIndependently() throws {
        let context = try TestStack.context()
        let recorder = Recorder(context, names: [.managedObjectContextDidSave])
        try context.performAndWait {
            let first = try Post(context: context)
            first.title = "First"
            try context.save()
            let second = try Post(context: context)
            second.title = "Second"

            let saved = try XCTUnwrap(recorder.last(.managedObjectContextDidSave)?.contextChanges)
            var grown = saved
            grown.insertedObjectIDs.insert(second.objectID)
            grown.deletedObjectIDs.insert(first.objectID)
            XCTAssertEqual(saved.insertedObjectIDs, [first.objectID], "the copy's change leaves the original as it was")
            XCTAssertEqual(saved.deletedObjectIDs, [])
            XCTAssertEqual(grown.insertedObjectIDs, [first.objectID, second.objectID])
            XCTAssertNotEqual(grown, saved)
            grown.insertedObjectIDs.remove(second.objectID)
            grown.deletedObjectIDs.removeAll()
            XCTAssertEqual(grown, saved)
            XCTAssertEqual(grown.hashValue, saved.hashValue)
            XCTAssertTrue(ContextChanges(kind: .didSave).isEmpty)
        }
    }
}
