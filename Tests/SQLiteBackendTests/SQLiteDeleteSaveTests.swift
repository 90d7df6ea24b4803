import Foundation
@testable import SQLiteBackend
import StoreCore
import StoreSQL
import StoreTestSupport
import XCTest

/// Saves that delete objects: optimistic locking of each deleted row (a row changed or deleted
/// since it was read is a merge conflict, and nothing of the save is written), and deleted rows
/// of entities with and without relationships.
final class SQLiteDeleteSaveTests: XCTestCase {
    private func notesModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Note") {
                .attribute("text", .string)
            }
            EntityDescription("Label") {
                .attribute("name", .string)
            }
        }
    }

    /// Saves notes with these texts and one label; returns the notes' IDs.
    private func saveNotes(_ texts: [String], in stack: SQLiteTestStore) throws -> [ManagedObjectID] {
        let context = stack.container.newBackgroundContext()
        return try context.performAndWait {
            let notes = try texts.map { text in
                let note = try context.insertNewObject(forEntityName: "Note")
                try note.setValue(text, forKey: "text")
                return note
            }
            try context.insertNewObject(forEntityName: "Label").setValue("kept", forKey: "name")
            try context.save()
            return notes.map(\.objectID)
        }
    }

    func testDeletingEveryFetchedFaultEmptiesTheTableOnly() throws {
        let stack = try SQLiteTestStore(try notesModel())
        let ids = try saveNotes((1...50).map { "note \($0)" }, in: stack)
        let context = stack.container.newBackgroundContext()
        try context.performAndWait {
            let notes = try context.fetch(FetchRequest<ManagedObject>(entityName: "Note"))
            XCTAssertEqual(notes.count, 50)
            for note in notes { context.delete(note) }
            try context.save()
            XCTAssertFalse(context.hasChanges)
            XCTAssertNil(context.registeredObject(for: ids[0]), "a deleted object leaves the context")
            XCTAssertTrue(try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).isEmpty)
        }
        XCTAssertEqual(try stack.column("SELECT COUNT(*) FROM ZNOTE"), [.integer(0)])
        XCTAssertEqual(try stack.column("SELECT ZNAME FROM ZLABEL"), [.text("kept")], "another table is untouched")
    }

    func testDeletingRowsChangedOrDeletedElsewhereIsAMergeConflictAndWritesNothing() throws {
        let stack = try SQLiteTestStore(try notesModel())
        let ids = try saveNotes(["one", "two", "three", "four"], in: stack)
        let (otherContainer, _) = try stack.reopen()
        let other = otherContainer.newBackgroundContext()
        let context = stack.container.newBackgroundContext()
        try context.performAndWait {
            // Faults fetched with their rows (and versions), before the other save.
            let notes = try context.fetch(FetchRequest<ManagedObject>(entityName: "Note"))
            try other.performAndWait {
                try other.existingObject(with: ids[1]).setValue("changed", forKey: "text")
                other.delete(try other.existingObject(with: ids[3]))
                try other.save()
            }
            for note in notes { context.delete(note) }
            XCTAssertThrowsError(try context.save()) { error in
                guard let conflicts = (error as? MergeConflictError)?.conflicts else { return XCTFail("not a merge conflict: \(error)") }
                let byID = Dictionary(uniqueKeysWithValues: conflicts.map { ($0.objectID, $0) })
                XCTAssertEqual(Set(byID.keys), [ids[1], ids[3]], "the changed and the deleted row, no other")
                XCTAssertEqual(byID[ids[1]]?.expectedVersion, 1)
                XCTAssertEqual(byID[ids[1]]?.storeVersion, 2)
                XCTAssertNotNil(byID[ids[1]]?.storeSnapshot, "the changed row's values")
                XCTAssertEqual(byID[ids[3]]?.storeVersion, 0)
                XCTAssertNil(byID[ids[3]]?.storeSnapshot, "the row deleted elsewhere has no values")
            }
            XCTAssertTrue(context.hasChanges, "the context keeps its deletions")
        }
        XCTAssertEqual(
            try stack.column("SELECT ZTEXT FROM ZNOTE ORDER BY Z_PK"), [.text("one"), .text("changed"), .text("three")],
            "nothing of the failed save was written")
    }

    func testDeletedRowsOfSeveralEntitiesInterleavedAreAllWritten() throws {
        let stack = try SQLiteTestStore(try notesModel())
        _ = try saveNotes(["a", "b", "c"], in: stack)
        let context = stack.container.newBackgroundContext()
        try context.performAndWait {
            let notes = try context.fetch(FetchRequest<ManagedObject>(entityName: "Note"))
            let labels = try context.fetch(FetchRequest<ManagedObject>(entityName: "Label"))
            context.delete(notes[0])
            context.delete(labels[0])
            context.delete(notes[2])
            try context.save()
        }
        XCTAssertEqual(try stack.column("SELECT ZTEXT FROM ZNOTE"), [.text("b")])
        XCTAssertEqual(try stack.column("SELECT COUNT(*) FROM ZLABEL"), [.integer(0)])
    }

    /// A thousand rows deleted in one save go a run of keys per statement; three of them changed
    /// and two deleted elsewhere are named exactly, once each — the rows deleted by the same
    /// statements are not — and nothing of the save is written.
    func testConflictsInsideALargeDeletionAreNamedExactlyAndNothingIsWritten() throws {
        let stack = try SQLiteTestStore(try notesModel())
        let ids = try saveNotes((1...1_000).map { "note \($0)" }, in: stack)
        let changed = [ids[0], ids[499], ids[999]], deletedElsewhere = [ids[1], ids[700]]
        let (otherContainer, _) = try stack.reopen()
        let other = otherContainer.newBackgroundContext()
        let context = stack.container.newBackgroundContext()
        try context.performAndWait {
            let notes = try context.fetch(FetchRequest<ManagedObject>(entityName: "Note"))
            XCTAssertEqual(notes.count, 1_000)
            try other.performAndWait {
                for id in changed { try other.existingObject(with: id).setValue("changed", forKey: "text") }
                for id in deletedElsewhere { other.delete(try other.existingObject(with: id)) }
                try other.save()
            }
            // A run of consecutive keys without a conflict, a changed note on its own, a run with
            // conflicts, then two notes on their own.
            let byKey = notes.sorted { $0.objectID.primaryKey ?? 0 < $1.objectID.primaryKey ?? 0 }
            for note in byKey[2..<499] { context.delete(note) }
            context.delete(byKey[999])
            for note in byKey[499..<999] { context.delete(note) }
            for note in byKey[..<2] { context.delete(note) }
            XCTAssertThrowsError(try context.save()) { error in
                guard let conflicts = (error as? MergeConflictError)?.conflicts else { return XCTFail("not a merge conflict: \(error)") }
                XCTAssertEqual(conflicts.count, 5, "each conflict once: \(conflicts.map(\.objectID))")
                let byID = Dictionary(conflicts.map { ($0.objectID, $0) }, uniquingKeysWith: { first, _ in first })
                XCTAssertEqual(Set(byID.keys), Set(changed + deletedElsewhere), "the changed and the deleted rows, no other")
                for id in changed {
                    XCTAssertEqual(byID[id]?.storeVersion, 2)
                    XCTAssertNotNil(byID[id]?.storeSnapshot, "a changed row's values")
                }
                for id in deletedElsewhere {
                    XCTAssertEqual(byID[id]?.storeVersion, 0)
                    XCTAssertNil(byID[id]?.storeSnapshot)
                }
            }
            XCTAssertTrue(context.hasChanges, "the context keeps its deletions")
        }
        XCTAssertEqual(try stack.column("SELECT COUNT(*) FROM ZNOTE"), [.integer(998)], "nothing of the failed save was deleted")
        XCTAssertEqual(try stack.column("SELECT COUNT(*) FROM ZNOTE WHERE ZTEXT = 'changed'"), [.integer(3)])
        XCTAssertEqual(try stack.column("SELECT COUNT(*) FROM ZLABEL"), [.integer(1)])
    }

    /// Runs of consecutive keys read at different versions, of two entities, with rows deleted on
    /// their own before and between them: every one is deleted, and what their to-many
    /// relationships held is cleared.
    func testALargeDeletionOfRowsOfSeveralVersionsAndEntitiesDeletesEveryOne() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Note") {
                .attribute("text", .string)
                .toMany("tags", destination: "Tag", inverse: "notes")
            }
            EntityDescription("Tag") {
                .attribute("name", .string)
                .toMany("notes", destination: "Note", inverse: "tags")
            }
        }
        let stack = try SQLiteTestStore(model)
        let context = stack.container.newBackgroundContext()
        try context.performAndWait {
            let kept = try context.insertNewObject(forEntityName: "Tag")
            try kept.setValue("kept", forKey: "name")
            for index in 0..<5_000 {
                let note = try context.insertNewObject(forEntityName: "Note")
                try note.setValue("n\(index)", forKey: "text")
                if index.isMultiple(of: 10) { try note.add(kept, toRelationship: "tags") }
                let tag = try context.insertNewObject(forEntityName: "Tag")
                try tag.setValue("t\(index)", forKey: "name")
            }
            try context.save()
            // The first half of the notes saved again: read at version 2.
            let notes = try context.fetch(FetchRequest<ManagedObject>(entityName: "Note"))
                .sorted { $0.objectID.primaryKey ?? 0 < $1.objectID.primaryKey ?? 0 }
            for note in notes[..<2_500] { try note.setValue("again", forKey: "text") }
            try context.save()
        }
        XCTAssertEqual(try stack.column("SELECT COUNT(*) FROM ZNOTE WHERE Z_OPT = 2"), [.integer(2_500)])
        let deleter = stack.container.newBackgroundContext()
        try deleter.performAndWait {
            let notes = try deleter.fetch(FetchRequest<ManagedObject>(entityName: "Note"))
                .sorted { $0.objectID.primaryKey ?? 0 < $1.objectID.primaryKey ?? 0 }
            let tags = try deleter.fetch(FetchRequest<ManagedObject>(entityName: "Tag", predicate: "name != 'kept'"))
                .sorted { $0.objectID.primaryKey ?? 0 < $1.objectID.primaryKey ?? 0 }
            // The last note on its own, then runs of notes read at version 2 and at 1, a tag
            // between them, then the other tags.
            deleter.delete(notes[4_999])
            for note in notes[..<2_500] { deleter.delete(note) }
            deleter.delete(tags[0])
            for note in notes[2_500..<4_999] { deleter.delete(note) }
            for tag in tags.dropFirst() { deleter.delete(tag) }
            try deleter.save()
        }
        XCTAssertEqual(try stack.column("SELECT COUNT(*) FROM ZNOTE"), [.integer(0)])
        XCTAssertEqual(try stack.column("SELECT ZNAME FROM ZTAG"), [.text("kept")])
        let joinTables = try stack.column("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z\\_%' ESCAPE '\\' AND name LIKE '%TAGS'")
        XCTAssertEqual(joinTables.count, 1, "the notes' tags are in a join table: \(joinTables)")
        guard case .text(let joinTable)? = joinTables.first else { return }
        XCTAssertEqual(try stack.column("SELECT COUNT(*) FROM \(joinTable)"), [.integer(0)], "the deleted notes' join rows are gone")
    }

    /// Objects deleted many per statement are each recorded in persistent history, with their
    /// tombstones read before their rows go.
    func testALargeDeletionRecordsEachObjectInHistoryWithItsTombstone() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Note") {
                .attribute("text", .string, preservesValueInHistoryOnDeletion: true)
            }
        }
        let stack = try SQLiteTestStore(model) { $0.isHistoryTrackingEnabled = true }
        let context = stack.container.newBackgroundContext()
        try context.performAndWait {
            for index in 1...40 { try context.insertNewObject(forEntityName: "Note").setValue("n\(index)", forKey: "text") }
            try context.save()
            let token = try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)).transactions?.last?.token
            let notes = try context.fetch(FetchRequest<ManagedObject>(entityName: "Note"))
            for note in notes { context.delete(note) }
            try context.save()
            let transactions = try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: token)).transactions ?? []
            XCTAssertEqual(transactions.count, 1, "one transaction for the save")
            let changes = transactions.first?.changes ?? []
            XCTAssertEqual(changes.count, 40)
            XCTAssertTrue(changes.allSatisfy { $0.changeType == .delete })
            XCTAssertEqual(Set(changes.map(\.changedObjectID)), Set(notes.map(\.objectID)))
            XCTAssertEqual(Set(changes.compactMap { $0.tombstone?["text"] }), Set((1...40).map { StoreValue.string("n\($0)") }))
        }
        XCTAssertEqual(try stack.column("SELECT COUNT(*) FROM ZNOTE"), [.integer(0)])
    }
}
