import Foundation
import StoreCore
import StoreSync
import StoreTestSupport
import XCTest

/// Conflicts: what wins when both sides changed the same objects between syncs.
final class SyncMergeTests: SyncTestCase {
    var server: SyncTestStore!
    var a: SyncTestStore!
    var b: SyncTestStore!

    override func setUpWithError() throws {
        try super.setUpWithError()
        server = try store("server")
        a = try store("a")
        b = try store("b", .xml)
    }

    func engines(_ options: SyncEngine.Options = .init()) throws -> (SyncEngine, SyncEngine) {
        (try SyncEngine(local: a.container, server: server.container, options: options),
         try SyncEngine(local: b.container, server: server.container, options: options))
    }

    /// Note "n" with tags t1, t2, t3 (n tagged t1) and folder "f", on both clients.
    func seed(_ engineA: SyncEngine, _ engineB: SyncEngine) async throws {
        try a.edit { context in
            let note = try context.insertNewObject(forEntityName: "Note")
            try note.setValue("n", forKey: "title")
            for label in ["t1", "t2", "t3"] {
                let tag = try context.insertNewObject(forEntityName: "Tag")
                try tag.setValue(label, forKey: "label")
                if label == "t1" { try note.add(tag, toRelationship: "tags") }
            }
            let folder = try context.insertNewObject(forEntityName: "Folder")
            try folder.setValue("f", forKey: "name")
        }
        try await engineA.sync()
        try await engineB.sync()
    }

    func note(in store: SyncTestStore) throws -> (title: String?, rank: Int64?, tags: [String], folder: String?)? {
        try store.edit { context in
            guard let note = try context.all("Note").first else { return nil }
            let tags = try (note.value(forKey: "tags") as? Set<ManagedObject> ?? []).map { try $0.value(forKey: "label") as? String ?? "?" }.sorted()
            let folder = try (note.value(forKey: "folder") as? ManagedObject)?.value(forKey: "name") as? String
            return (try note.value(forKey: "title") as? String, try note.value(forKey: "rank") as? Int64, tags, folder)
        }
    }

    func testToManyEditsOnBothSidesAreMergedNotOverwritten() async throws {
        let (engineA, engineB) = try engines()
        try await seed(engineA, engineB)
        try a.edit { context in
            let note = try XCTUnwrap(context.all("Note").first)
            try note.add(XCTUnwrap(context.all("Tag", "label == 't2'").first), toRelationship: "tags")
            try note.remove(XCTUnwrap(context.all("Tag", "label == 't1'").first), fromRelationship: "tags")
        }
        try b.edit { context in
            try XCTUnwrap(context.all("Note").first).add(XCTUnwrap(context.all("Tag", "label == 't3'").first), toRelationship: "tags")
        }
        try await engineA.sync()
        try await engineB.sync()
        try await engineA.sync()
        XCTAssertEqual(try note(in: a)?.tags, ["t2", "t3"], "A's add and remove and B's add all kept")
        XCTAssertEqual(try note(in: b)?.tags, ["t2", "t3"])
        XCTAssertEqual(try a.contents(), try b.contents())
    }

    func testMembersAddedThroughTheirToOneOnBothSidesAreMerged() async throws {
        let (engineA, engineB) = try engines()
        try await seed(engineA, engineB)
        try a.edit { context in
            let note = try context.insertNewObject(forEntityName: "Note")
            try note.setValue("from a", forKey: "title")
            try note.setValue(XCTUnwrap(context.all("Folder").first), forKey: "folder")
        }
        try b.edit { context in
            let note = try context.insertNewObject(forEntityName: "Note")
            try note.setValue("from b", forKey: "title")
            try note.setValue(XCTUnwrap(context.all("Folder").first), forKey: "folder")
        }
        try await engineA.sync()
        try await engineB.sync()
        try await engineA.sync()
        for store in [a!, b!, server!] {
            let titles = try store.edit { context in
                try (XCTUnwrap(context.all("Folder").first).value(forKey: "notes") as? Set<ManagedObject> ?? []).map { try $0.value(forKey: "title") as? String ?? "" }.sorted()
            }
            XCTAssertEqual(titles, ["from a", "from b"])
        }
    }

    func testSameAttributeOnBothSidesTakesTheLastPushAndOthersMerge() async throws {
        let (engineA, engineB) = try engines()
        try await seed(engineA, engineB)
        try a.edit { context in
            try XCTUnwrap(context.all("Note").first).setValue("title from a", forKey: "title")
            try XCTUnwrap(context.all("Note").first).setValue(Int64(7), forKey: "rank")
        }
        try b.edit { context in try XCTUnwrap(context.all("Note").first).setValue("title from b", forKey: "title") }
        try await engineA.sync()
        let summary = try await engineB.sync()
        try await engineA.sync()
        XCTAssertEqual(summary.conflicts, 0, "no resolver: no conflicts counted")
        for store in [a!, b!, server!] {
            XCTAssertEqual(try note(in: store)?.title, "title from b", "B pushed last")
            XCTAssertEqual(try note(in: store)?.rank, 7, "A's other attribute kept")
        }
    }

    func testConflictResolverChoosesTheValue() async throws {
        let seen = LockedBox<[SyncConflict]>([])
        var options = SyncEngine.Options()
        options.conflictResolver = { conflict in
            seen.mutate { $0.append(conflict) }
            guard case .string(let server) = conflict.serverValue, case .string(let local) = conflict.localValue else { return .keepLocal }
            return .use(.string("merged: \(server) + \(local)"))
        }
        let (engineA, engineB) = try engines(options)
        try await seed(engineA, engineB)
        try a.edit { context in try XCTUnwrap(context.all("Note").first).setValue("a", forKey: "title") }
        try b.edit { context in
            try XCTUnwrap(context.all("Note").first).setValue("b", forKey: "title")
            try XCTUnwrap(context.all("Note").first).setValue(Int64(3), forKey: "rank")
        }
        try await engineA.sync()
        let summary = try await engineB.sync()
        try await engineA.sync()
        XCTAssertEqual(summary.conflicts, 1)
        XCTAssertEqual(seen.value.map(\.key), ["title"], "only the attribute both changed")
        for store in [a!, b!, server!] {
            XCTAssertEqual(try note(in: store)?.title, "merged: a + b")
            XCTAssertEqual(try note(in: store)?.rank, 3)
        }
    }

    func testDeleteWinsOverAConcurrentUpdateEitherWay() async throws {
        let (engineA, engineB) = try engines()
        try await seed(engineA, engineB)
        try a.edit { context in try context.delete(XCTUnwrap(context.all("Note").first)) }
        try b.edit { context in try XCTUnwrap(context.all("Note").first).setValue("edited", forKey: "title") }
        try await engineB.sync()          // the update reaches the server first
        try await engineA.sync()          // then the delete
        try await engineB.sync()
        for store in [a!, b!, server!] { XCTAssertNil(try note(in: store)) }

        try a.edit { context in
            let note = try context.insertNewObject(forEntityName: "Note")
            try note.setValue("second", forKey: "title")
        }
        try await engineA.sync()
        try await engineB.sync()
        try a.edit { context in try XCTUnwrap(context.all("Note").first).setValue("edited", forKey: "title") }
        try b.edit { context in try context.delete(XCTUnwrap(context.all("Note").first)) }
        try await engineB.sync()          // the delete first
        try await engineA.sync()          // the update finds nothing to update
        try await engineB.sync()
        for store in [a!, b!, server!] { XCTAssertNil(try note(in: store)) }
        XCTAssertEqual(try a.contents(), try b.contents())
    }

    func testTransientAttributesStayLocal() async throws {
        let (engineA, engineB) = try engines()
        try await seed(engineA, engineB)
        try a.edit { context in
            let note = try XCTUnwrap(context.all("Note").first)
            try note.setValue("local only", forKey: "draft")
            try note.setValue("shared", forKey: "body")
        }
        try await engineA.sync()
        try await engineB.sync()
        let (body, draft) = try b.edit { context in
            let note = try XCTUnwrap(context.all("Note").first)
            return (try note.value(forKey: "body") as? String, try note.value(forKey: "draft") as? String)
        }
        XCTAssertEqual(body, "shared")
        XCTAssertNil(draft)
    }
}
