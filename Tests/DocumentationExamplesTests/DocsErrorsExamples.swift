import Foundation
import Stowage
import XCTest

/// docs/errors.md: codes as catch patterns, each error type's fields, and the underlying error.
final class DocsErrorsExamples: XCTestCase {
    /// The page's first example, around a save of `context`.
    private func saveReportingErrors(_ context: ManagedObjectContext) throws {
        do {
            try context.save()
        } catch ObjectValidationError.Code.uniquenessConstraint {
            // another object already has this value
        } catch let error as ObjectValidationError {
            for failure in error.allErrors { print(failure.entity, failure.key ?? "-", failure.code) }
        } catch StoreError.Code.readOnly {
            print("this store was opened read-only")
        } catch let error as StoreError {
            print(error.code, error.message, error.underlyingError.map { "\($0)" } ?? "")
        }
    }

    /// The page's second example: SQLite's own code, from the error a save threw.
    private func saveNamingAFullDisk(_ context: ManagedObjectContext) throws {
        do {
            try context.save()
        } catch let error as StoreError {
            if let sqlite = error.underlyingError as? SQLiteError, sqlite.resultCode == 13 {
                print("the disk is full; nothing was saved")
            }
            throw error
        }
    }

    func testCodesAsCatchPatterns() throws {
        let container = try ExampleStack.seeded()
        let context = container.viewContext
        _ = printed.take()

        let copy = try Author(context: context)
        copy.name = "Ada again"
        copy.email = "ada@example.com"                 // Ada's: the uniqueness constraint
        try saveReportingErrors(context)
        XCTAssertEqual(printed.take(), [], "the uniqueness case prints nothing")
        XCTAssertTrue(context.hasChanges, "a refused save keeps the changes")
        context.rollback()

        let post = try Post(context: context)
        post.title = "Negative"
        try post.setValue(Int64(-1), forKey: "views")   // the rule is minimum 0
        try saveReportingErrors(context)
        XCTAssertEqual(printed.take().count, 1)
        context.rollback()

        var readOnly = PersistentStoreDescription(type: .inMemory)
        readOnly.isReadOnly = true
        let archive = try ExampleStack.container(readOnly)
        _ = try Post(context: archive.viewContext)
        try saveReportingErrors(archive.viewContext)
        XCTAssertEqual(printed.take(), ["this store was opened read-only"])
    }

    func testTheUnderlyingErrorOfASave() throws {
        let directory = try ExampleStack.makeDirectory()
        defer { ExampleStack.removeDirectory(directory) }
        let container = try ExampleStack.container(PersistentStoreDescription(url: directory.appendingPathComponent("Blog.sqlite")))
        _ = printed.take()
        let post = try Post(context: container.viewContext)
        post.title = "Saved"
        try saveNamingAFullDisk(container.viewContext)      // the disk is not full: saved, nothing printed
        XCTAssertEqual(printed.take(), [])
        XCTAssertFalse(container.viewContext.hasChanges)
        ExampleStack.close(container)
    }
}
