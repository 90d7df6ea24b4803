import Foundation
import Stowage
import XCTest

/// ErrorHandling.md: every error type's fields and codes, caught as the article catches them;
/// what each `catch` prints is checked against the article's comments.
final class ErrorHandlingExamples: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try ExampleStack.makeDirectory()
        _ = printed.take()
    }

    override func tearDown() {
        ExampleStack.removeDirectory(directory)
        super.tearDown()
    }

    func testValidationErrors() throws {
        let container = try ExampleStack.seeded()
        let context = container.viewContext

        let author = try Author(context: context)
        author.email = "not an address"
        let post = try Post(context: context)
        try post.setValue(-5, forKey: "views")
        do {
            try context.save()
        } catch let error as ObjectValidationError {
            for failure in error.allErrors {
                print(failure.entity, failure.key ?? "", failure.code)   // Author email patternMismatch, Post views tooSmall
            }
            context.rollback()
        }

        XCTAssertEqual(Set(printed.take()), ["Author email patternMismatch", "Post views tooSmall"])
        XCTAssertFalse(context.hasChanges, "rolled back")

        let duplicate = try Author(context: context)
        duplicate.name = "Ada again"
        duplicate.email = "ada@example.com"
        do {
            try context.save()
        } catch let error as ObjectValidationError where error.code == .uniquenessConstraint {
            for conflict in error.constraintConflicts {
                print(conflict.entity, conflict.constraint, conflict.constraintValues["email"] ?? .null)
                // Author ["email"] "ada@example.com"
            }
            context.rollback()
        }

        XCTAssertEqual(printed.take(), [#"Author ["email"] "ada@example.com""#])
        XCTAssertFalse(context.hasChanges, "rolled back")
        XCTAssertEqual(try context.count(for: FetchRequest<Author>()), 2, "nothing was written")

        // The error itself, for the fields the loop does not print.
        let second = try Author(context: context)
        second.email = "grace@example.com"
        XCTAssertThrowsError(try context.save()) { error in
            let error = error as? ObjectValidationError
            XCTAssertEqual(error?.code, .uniquenessConstraint)
            XCTAssertEqual(error?.constraintConflicts.first?.databaseObjectID?.entityName, "Author")
            XCTAssertEqual(error?.allErrors.count, 1)
        }
        context.rollback()
    }

    func testStoreErrors() throws {
        let model = try ExampleStack.model()

        var readOnly = PersistentStoreDescription(type: .inMemory)
        readOnly.isReadOnly = true
        let archive = PersistentContainer(name: "Archive", managedObjectModel: model)
        archive.persistentStoreDescriptions = [readOnly]
        try archive.loadPersistentStores()
        _ = try Post(context: archive.viewContext)
        do {
            try archive.viewContext.save()
        } catch let error as StoreError where error.code == .readOnly {
            print(error.message)                  // the store is read-only; nothing was saved
        }

        XCTAssertEqual(printed.take(), ["the store is read-only; nothing was saved"])
        XCTAssertTrue(archive.viewContext.hasChanges, "a failed save keeps the changes")
    }

    func testCodesAsCatchPatternsAndTheUnderlyingError() throws {
        let model = try ExampleStack.model()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let damaged = directory.appendingPathComponent("Damaged.sqlite")
        try Data("SQLite format 3\u{0}".utf8 + Data(repeating: 0xA5, count: 4096)).write(to: damaged)
        let broken = PersistentContainer(name: "Broken", managedObjectModel: model)
        broken.persistentStoreDescriptions = [PersistentStoreDescription(url: damaged)]
        do {
            try broken.loadPersistentStores()
        } catch StoreError.Code.corrupt {
            print("damaged")                      // damaged
        } catch let error as StoreError {
            if let sqlite = error.underlyingError as? SQLiteError {
                print(error.code, sqlite.resultCode)
            }
        }

        XCTAssertEqual(printed.take(), ["damaged"])
        XCTAssertThrowsError(try broken.loadPersistentStores()) { error in
            XCTAssertEqual((error as? StoreError)?.code, .corrupt)
            XCTAssertEqual(((error as? StoreError)?.underlyingError as? SQLiteError)?.resultCode, 26, "SQLITE_NOTADB")
        }
    }

    func testFetchAndPredicateErrors() throws {
        let container = try ExampleStack.seeded()
        let context = container.viewContext

        do {
            _ = try context.fetch(FetchRequest<Post>(entityName: "Post", predicate: "subtitle == 'x'"))
        } catch let error as FetchError where error.code == .invalidKeyPath {
            print(error.message)                  // no property 'subtitle' on entity Post
        }

        XCTAssertEqual(printed.take(), ["no property 'subtitle' on entity Post"])

        do {
            _ = try StorePredicate(format: "views > * 2")
        } catch {
            print(error.code, error.offset)       // unexpectedToken 8
            print(error.excerpt)                  // the format, with a caret under the '*'
        }

        XCTAssertEqual(printed.take(), ["unexpectedToken 8", "  views > * 2\n          ^"])

        // An unknown entity is a model error.
        XCTAssertThrowsError(try context.fetch(FetchRequest<ManagedObject>(entityName: "Nope"))) { error in
            XCTAssertEqual((error as? ModelError)?.code, .unknownEntity, "\(error)")
        }
    }

    func testModelAndModelFileErrors() throws {
        do {
            _ = try ManagedObjectModel {
                EntityDescription("Note") {
                    .toMany("tags", destination: "Tag", inverse: "notes")
                }
            }
        } catch {
            print(error.code, error.entity ?? "", error.key ?? "")    // unknownDestination Note tags
        }

        XCTAssertEqual(printed.take(), ["unknownDestination Note tags"])

        do {
            _ = try ManagedObjectModel(contentsOf: directory.appendingPathComponent("Missing.xcdatamodeld"))
        } catch {
            print(error.code)                     // notFound
        }

        XCTAssertEqual(printed.take(), ["notFound"])
    }

    func testMergeConflictsAndMigrationErrors() throws {
        let container = try ExampleStack.seeded()
        let context = container.viewContext
        let mine = try context.fetch(FetchRequest<Post>(entityName: "Post", predicate: "title == 'Misty Morning'"))[0]
        mine.title = "Mine"
        let theirs = container.newBackgroundContext()
        try theirs.performAndWait {
            let post = try theirs.fetch(FetchRequest<Post>(entityName: "Post", predicate: "title == 'Misty Morning'"))[0]
            post.title = "Theirs"
            try theirs.save()
        }

        do {
            try context.save()
        } catch let error as MergeConflictError {
            for conflict in error.conflicts {
                print(conflict.objectID.entityName, conflict.expectedVersion, conflict.storeVersion)   // Post 1 2
            }
            context.mergePolicy = .mergeByPropertyObjectTrump
            try context.save()
        }

        XCTAssertEqual(printed.take(), ["Post 1 2"])
        let reader = container.newBackgroundContext()
        let titles = try reader.performAndWait { try reader.fetch(FetchRequest<Post>()).map(\.title).sorted() }
        XCTAssertEqual(titles, ["Harbour Lights", "Mine", "Northern Sky"])

        let textual = try ManagedObjectModel { EntityDescription("Note") { .attribute("rank", .string) } }
        let numeric = try ManagedObjectModel { EntityDescription("Note") { .attribute("rank", .integer64) } }
        do {
            _ = try MappingModel.inferredMappingModel(forSourceModel: textual, destinationModel: numeric)
        } catch {
            print(error.code, error.entity ?? "", error.key ?? "")     // cannotInferMapping Note rank
        }

        XCTAssertEqual(printed.take(), ["cannotInferMapping Note rank"])
    }
}
