import Foundation
@testable import StoreCore
import StoreTestSupport
import XCTest

/// What the objects-did-change and did-save notifications of a save carry, however the save went:
/// a save makes each set of objects once and hands the same set to both notifications when the
/// objects did not change in between, so these check every way they can change in between.
final class SaveNotificationSetsTests: XCTestCase {
    private typealias Key = ManagedObjectContext.NotificationKey

    /// Collects the notifications one context posts.
    private final class Recorder: @unchecked Sendable {
        // @unchecked: notifications are posted synchronously on the context's queue, which the
        // test waits on before reading.
        var notes: [Notification] = []
        var tokens: [NSObjectProtocol] = []
        init(_ context: ManagedObjectContext, names: [Notification.Name]) {
            for name in names { observe(context, name) }
        }
        func observe(_ context: ManagedObjectContext, _ name: Notification.Name) {
            tokens.append(NotificationCenter.default.addObserver(forName: name, object: context, queue: nil) { [unowned self] in
                self.notes.append($0)
            })
        }
        deinit { tokens.forEach(NotificationCenter.default.removeObserver) }
        func all(_ name: Notification.Name) -> [Notification] { notes.filter { $0.name == name } }
        func last(_ name: Notification.Name) -> Notification? { notes.last { $0.name == name } }
    }

    private func objects(_ note: Notification?, _ key: Key) -> Set<ManagedObject>? {
        note?.userInfo?[key.rawValue] as? Set<ManagedObject>
    }

    private func ids(_ note: Notification?, _ key: Key) -> Set<ManagedObjectID>? {
        note?.userInfo?[key.rawValue] as? Set<ManagedObjectID>
    }

    private func savedPosts(_ titles: [String], in context: ManagedObjectContext) throws -> [Post] {
        let posts = try Self.newPosts(titles, in: context)
        try context.save()
        return posts
    }

    private static func newPosts(_ titles: [String], in context: ManagedObjectContext) throws -> [Post] {
        try titles.map { title in
            let post = try Post(context: context)
            post.title = title
            return post
        }
    }

    func testObjectsDidChangeAndDidSaveOfOneSaveCarryTheSavedObjectsAndTheirIDs() throws {
        let context = try TestStack.context()
        let recorder = Recorder(context, names: [.managedObjectContextObjectsDidChange, .managedObjectContextDidSave, .managedObjectContextDidSaveObjectIDs])
        try context.performAndWait {
            let posts = try Self.newPosts(["Post 1", "Post 2", "Post 3"], in: context)
            let temporaryIDs = Set(posts.map(\.objectID))
            try context.save()

            let changed = recorder.last(.managedObjectContextObjectsDidChange)
            XCTAssertEqual(objects(changed, .insertedObjects), Set(posts))
            XCTAssertEqual(changed?.contextChanges?.insertedObjectIDs, temporaryIDs, "objects-did-change names the objects as they were then")
            XCTAssertEqual(objects(changed, .updatedObjects), [])
            XCTAssertEqual(objects(changed, .deletedObjects), [])
            let saved = recorder.last(.managedObjectContextDidSave)
            XCTAssertEqual(objects(saved, .insertedObjects), Set(posts))
            XCTAssertEqual(ids(saved, .insertedObjectIDs), Set(posts.map(\.objectID)))
            XCTAssertFalse(posts.contains { $0.objectID.isTemporaryID })
            XCTAssertEqual(objects(saved, .updatedObjects), [])
            XCTAssertEqual(ids(saved, .deletedObjectIDs), [])
            XCTAssertEqual(ids(recorder.last(.managedObjectContextDidSaveObjectIDs), .insertedObjectIDs), Set(posts.map(\.objectID)))
        }
    }

    /// Every notification of a save of updates names exactly the updated objects, whether the
    /// save keeps their ID set from objects-did-change to did-save or (a large save) makes it again.
    func testEveryNotificationOfASaveOfUpdatesNamesTheUpdatedObjects() throws {
        try checkEveryNotificationNamesTheUpdatedObjects(reuseLimit: 250_000)
        try checkEveryNotificationNamesTheUpdatedObjects(reuseLimit: 1)
    }

    private func checkEveryNotificationNamesTheUpdatedObjects(reuseLimit: Int) throws {
        let context = try TestStack.context()
        context.updatedIDSetReuseLimit = reuseLimit
        let recorder = Recorder(context, names: [
            .managedObjectContextObjectsDidChange, .managedObjectContextWillSave, .managedObjectContextDidSave,
            .managedObjectContextDidSaveObjectIDs,
        ])
        try context.performAndWait {
            let posts = try savedPosts(["Post 1", "Post 2", "Post 3"], in: context)
            for post in posts.prefix(2) { post.title += ", changed" }
            try context.save()

            let updated = Set(posts.prefix(2).map(\.objectID))
            XCTAssertEqual(recorder.last(.managedObjectContextObjectsDidChange)?.contextChanges?.updatedObjectIDs, updated)
            XCTAssertEqual(recorder.last(.managedObjectContextWillSave)?.contextChanges?.updatedObjectIDs, updated)
            XCTAssertEqual(ids(recorder.last(.managedObjectContextDidSave), .updatedObjectIDs), updated)
            XCTAssertEqual(objects(recorder.last(.managedObjectContextDidSave), .updatedObjects), Set(posts.prefix(2)))
            XCTAssertEqual(ids(recorder.last(.managedObjectContextDidSaveObjectIDs), .updatedObjectIDs), updated)
            XCTAssertEqual(recorder.last(.managedObjectContextDidSave)?.contextChanges?.updatedObjectIDs, updated)
        }
    }

    func testWillSaveNamesEveryObjectTheSaveSaves() throws {
        let context = try TestStack.context()
        let recorder = Recorder(context, names: [.managedObjectContextWillSave])
        try context.performAndWait {
            let (stored, doomed) = try { let posts = try savedPosts(["Stored", "Doomed"], in: context); return (posts[0], posts[1]) }()
            let first = try Post(context: context)
            first.title = "First"
            context.processPendingChanges()   // reported before the save: the save's objects-did-change names the rest only
            let second = try Post(context: context)
            second.title = "Second"
            stored.title = "Stored, changed"
            context.delete(doomed)
            let ids = Set([first, second].map(\.objectID))
            try context.save()

            let changes = try XCTUnwrap(recorder.last(.managedObjectContextWillSave)?.contextChanges)
            XCTAssertEqual(changes.insertedObjectIDs, ids)
            XCTAssertEqual(changes.updatedObjectIDs, [stored.objectID])
            XCTAssertEqual(changes.deletedObjectIDs, [doomed.objectID])
        }
    }

    func testWillSaveNamesNewObjectsByTheIDsTheyHaveWhenItIsPosted() throws {
        let context = try TestStack.context()
        let recorder = Recorder(context, names: [.managedObjectContextWillSave])
        let post = LockedBox<Post?>(nil)
        // The save's objects-did-change names the new object by its temporary ID; an observer
        // gives it its permanent ID before will-save is posted.
        let trigger = NotificationCenter.default.addObserver(forName: .managedObjectContextObjectsDidChange, object: context, queue: nil) { _ in
            guard let object = post.value, object.objectID.isTemporaryID else { return }
            do { try context.obtainPermanentIDs(for: [object]) } catch { XCTFail("\(error)") }
        }
        defer { NotificationCenter.default.removeObserver(trigger) }
        try context.performAndWait {
            let new = try Post(context: context)
            new.title = "New"
            post.value = new
            try context.save()

            let changes = try XCTUnwrap(recorder.last(.managedObjectContextWillSave)?.contextChanges)
            XCTAssertFalse(new.objectID.isTemporaryID)
            XCTAssertEqual(changes.insertedObjectIDs, [new.objectID])
        }
    }

    func testAnObserverAddedDuringASaveReceivesItsDidSave() throws {
        let context = try TestStack.context()
        let late = Recorder(context, names: [])
        let early = Recorder(context, names: [.managedObjectContextDidSave])
        // Registered by the objects-did-change the save posts first, so only the did-save reaches it.
        let trigger = NotificationCenter.default.addObserver(forName: .managedObjectContextObjectsDidChange, object: context, queue: nil) { _ in
            if late.tokens.isEmpty { late.observe(context, .managedObjectContextDidSave) }
        }
        defer { NotificationCenter.default.removeObserver(trigger) }
        try context.performAndWait {
            let posts = try Self.newPosts(["Post 1", "Post 2", "Post 3"], in: context)
            try context.save()
            XCTAssertEqual(late.all(.managedObjectContextDidSave).count, 1)
            let saved = late.last(.managedObjectContextDidSave)
            XCTAssertEqual(objects(saved, .insertedObjects), Set(posts))
            XCTAssertEqual(ids(saved, .insertedObjectIDs), Set(posts.map(\.objectID)))
            XCTAssertEqual(objects(saved, .updatedObjects), [])
            XCTAssertEqual(objects(saved, .insertedObjects), objects(early.last(.managedObjectContextDidSave), .insertedObjects))
            XCTAssertEqual(ids(saved, .insertedObjectIDs), ids(early.last(.managedObjectContextDidSave), .insertedObjectIDs))
        }
    }

    func testDidSaveIsTheSameWhetherObjectsDidChangeIsObservedOrNot() throws {
        func savedTitles(observingObjectsDidChange: Bool) throws -> (inserted: Set<String>, updated: Set<String>, deleted: Int) {
            let context = try TestStack.context()
            let recorder = Recorder(context, names: [.managedObjectContextDidSave] + (observingObjectsDidChange ? [.managedObjectContextObjectsDidChange] : []))
            return try context.performAndWait {
                let posts = try savedPosts(["A", "B", "C"], in: context)
                posts[0].title = "A2"
                context.delete(posts[1])
                let added = try Post(context: context)
                added.title = "D"
                try context.save()
                let saved = recorder.last(.managedObjectContextDidSave)
                func titles(_ key: Key) -> Set<String> { Set((objects(saved, key) ?? []).compactMap { ($0 as? Post)?.title }) }
                return (titles(.insertedObjects), titles(.updatedObjects), objects(saved, .deletedObjects)?.count ?? -1)
            }
        }
        let observed = try savedTitles(observingObjectsDidChange: true)
        let unobserved = try savedTitles(observingObjectsDidChange: false)
        XCTAssertEqual(observed.inserted, ["D"])
        XCTAssertEqual(observed.updated, ["A2"])
        XCTAssertEqual(observed.deleted, 1)
        XCTAssertEqual(observed.inserted, unobserved.inserted)
        XCTAssertEqual(observed.updated, unobserved.updated)
        XCTAssertEqual(observed.deleted, unobserved.deleted)
    }

    func testObjectsInsertedAndChangedWhileSavingAreInTheDidSave() throws {
        let context = try TestStack.context()
        let (storedID, otherID) = try context.performAndWait {
            let posts = try savedPosts(["Stored", "Other"], in: context)
            return (posts[0].objectID, posts[1].objectID)
        }
        let recorder = Recorder(context, names: [.managedObjectContextObjectsDidChange, .managedObjectContextDidSave])
        let added = LockedBox<Post?>(nil)
        // A will-save observer inserts one more object and changes another saved one: the save's
        // objects-did-change has already been posted by then.
        let trigger = NotificationCenter.default.addObserver(forName: .managedObjectContextWillSave, object: context, queue: nil) { _ in
            guard added.value == nil else { return }
            do {
                let post = try Post(context: context)
                post.title = "Added while saving"
                added.value = post
                (context.registeredObject(for: otherID) as? Post)?.title = "Other, changed while saving"
            } catch { XCTFail("\(error)") }
        }
        defer { NotificationCenter.default.removeObserver(trigger) }
        try context.performAndWait {
            let stored = try XCTUnwrap(context.registeredObject(for: storedID) as? Post)
            let other = try XCTUnwrap(context.registeredObject(for: otherID) as? Post)
            let post = try Post(context: context)
            post.title = "New"
            stored.title = "Stored, changed"
            try context.save()

            let late = try XCTUnwrap(added.value)
            let saved = recorder.last(.managedObjectContextDidSave)
            XCTAssertEqual(objects(saved, .insertedObjects), [post, late])
            XCTAssertEqual(ids(saved, .insertedObjectIDs), [post.objectID, late.objectID])
            XCTAssertEqual(objects(saved, .updatedObjects), [stored, other])
            XCTAssertEqual(ids(saved, .updatedObjectIDs), [stored.objectID, other.objectID])
            let changes = recorder.all(.managedObjectContextObjectsDidChange)
            XCTAssertEqual(changes.count, 2, "one at the start of the save, one after will-save")
            XCTAssertEqual(objects(changes.first, .insertedObjects), [post])
            XCTAssertEqual(objects(changes.first, .updatedObjects), [stored])
            XCTAssertEqual(objects(changes.last, .insertedObjects), [late])
            XCTAssertEqual(objects(changes.last, .updatedObjects), [other])
        }
    }

    func testAnObjectInsertedByAnObjectsDidChangeObserverDuringTheSaveIsInTheDidSave() throws {
        let context = try TestStack.context()
        let recorder = Recorder(context, names: [.managedObjectContextDidSave])
        let added = LockedBox<Post?>(nil)
        let saving = LockedBox(false)
        // Inserts one more object while the save's first objects-did-change is being posted.
        let trigger = NotificationCenter.default.addObserver(forName: .managedObjectContextObjectsDidChange, object: context, queue: nil) { _ in
            guard saving.value, added.value == nil else { return }
            do {
                let post = try Post(context: context)
                post.title = "Added while notified"
                added.value = post
            } catch { XCTFail("\(error)") }
        }
        defer { NotificationCenter.default.removeObserver(trigger) }
        try context.performAndWait {
            let post = try Post(context: context)
            post.title = "New"
            saving.value = true
            try context.save()

            let late = try XCTUnwrap(added.value)
            let saved = recorder.last(.managedObjectContextDidSave)
            XCTAssertEqual(objects(saved, .insertedObjects), [post, late])
            XCTAssertEqual(ids(saved, .insertedObjectIDs), [post.objectID, late.objectID])
            XCTAssertFalse(late.hasChanges)
        }
    }

    func testObjectsReportedBeforeTheSaveAreInTheDidSave() throws {
        let context = try TestStack.context()
        let recorder = Recorder(context, names: [.managedObjectContextObjectsDidChange, .managedObjectContextDidSave])
        try context.performAndWait {
            let (stored, other) = try { let posts = try savedPosts(["Stored", "Other"], in: context); return (posts[0], posts[1]) }()
            let first = try Post(context: context)
            first.title = "First"
            stored.title = "Stored, changed"
            context.processPendingChanges()
            let second = try Post(context: context)
            second.title = "Second"
            other.title = "Other, changed"
            try context.save()

            let changed = recorder.last(.managedObjectContextObjectsDidChange)
            XCTAssertEqual(objects(changed, .insertedObjects), [second])
            XCTAssertEqual(objects(changed, .updatedObjects), [other])
            let saved = recorder.last(.managedObjectContextDidSave)
            XCTAssertEqual(objects(saved, .insertedObjects), [first, second])
            XCTAssertEqual(ids(saved, .insertedObjectIDs), [first.objectID, second.objectID])
            XCTAssertEqual(objects(saved, .updatedObjects), [stored, other])
            XCTAssertEqual(ids(saved, .updatedObjectIDs), [stored.objectID, other.objectID])
        }
    }

    func testObjectsInsertedThenDeletedAreNotInTheDidSave() throws {
        let context = try TestStack.context()
        let recorder = Recorder(context, names: [.managedObjectContextObjectsDidChange, .managedObjectContextDidSave])
        try context.performAndWait {
            let stored = try savedPosts(["Stored"], in: context)[0]
            let storedID = stored.objectID
            let kept = try Post(context: context)
            kept.title = "Kept"
            let dropped = try Post(context: context)
            dropped.title = "Dropped"
            context.delete(dropped)
            context.delete(stored)
            try context.save()

            let changed = recorder.last(.managedObjectContextObjectsDidChange)
            XCTAssertEqual(objects(changed, .insertedObjects), [kept])
            XCTAssertEqual(objects(changed, .deletedObjects), [dropped, stored], "objects-did-change reports every deletion")
            let saved = recorder.last(.managedObjectContextDidSave)
            XCTAssertEqual(objects(saved, .insertedObjects), [kept])
            XCTAssertEqual(objects(saved, .deletedObjects), [stored], "a save deletes only what was stored")
            XCTAssertEqual(ids(saved, .deletedObjectIDs), [storedID])
        }
    }

    func testDuplicatesTheMergePolicyResolvesAreNotInTheDidSave() throws {
        let context = try TestStack.context()
        context.mergePolicy = .mergeByPropertyObjectTrump
        let recorder = Recorder(context, names: [.managedObjectContextObjectsDidChange, .managedObjectContextDidSave])
        try context.performAndWait {
            let first = try Tag(context: context)
            first.name = "swift"
            let duplicate = try Tag(context: context)
            duplicate.name = "swift"
            let other = try Tag(context: context)
            other.name = "linux"
            try context.save()

            XCTAssertEqual(objects(recorder.all(.managedObjectContextObjectsDidChange).first, .insertedObjects), [first, duplicate, other])
            let saved = recorder.last(.managedObjectContextDidSave)
            let inserted = try XCTUnwrap(objects(saved, .insertedObjects))
            XCTAssertEqual(inserted.count, 2, "one tag per name")
            XCTAssertEqual(Set(inserted.compactMap { ($0 as? Tag)?.name }), ["swift", "linux"])
            XCTAssertEqual(ids(saved, .insertedObjectIDs), Set(inserted.map(\.objectID)))
            XCTAssertTrue(inserted.contains(other))
        }
    }

    func testAsyncSequencesSeeTheSameSetsAsNotifications() async throws {
        let context = try TestStack.context()
        let didSave = context.changes(of: .didSave)
        let changed = context.changes(of: .objectsDidChange)
        let recorder = Recorder(context, names: [.managedObjectContextObjectsDidChange, .managedObjectContextDidSave])
        let (temporaryIDs, savedIDs) = try await context.perform {
            let posts = try Self.newPosts(["Post 1", "Post 2", "Post 3"], in: context)
            let temporaryIDs = Set(posts.map(\.objectID))
            try context.save()
            return (temporaryIDs, Set(posts.map(\.objectID)))
        }
        var changes = changed.makeAsyncIterator()
        let firstChange = await changes.next()
        XCTAssertEqual(firstChange?.insertedObjectIDs, temporaryIDs)
        var saves = didSave.makeAsyncIterator()
        let save = await saves.next()
        XCTAssertEqual(save?.insertedObjectIDs, savedIDs)
        XCTAssertEqual(save, recorder.last(.managedObjectContextDidSave)?.contextChanges)
        XCTAssertEqual(firstChange, recorder.last(.managedObjectContextObjectsDidChange)?.contextChanges)
    }
}
