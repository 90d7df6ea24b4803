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
}
