import Foundation
import Stowage
import XCTest

/// PortingFromCoreData.md: a Core Data fetch, renamed; errors caught by type.
final class PortingFromCoreDataExamples: XCTestCase {
    func testAFetchRenamed() throws {
        let container = try ExampleStack.seeded()
        let context = container.viewContext

        // Core Data: let request = NSFetchRequest<Post>(entityName: "Post"), NSPredicate(format:), NSSortDescriptor
        var request = FetchRequest<Post>()
        request.predicate = try StorePredicate(format: "title BEGINSWITH %@", "Misty")
        request.sortDescriptors = [StoreSortDescriptor(keyPath: "timestamp", ascending: false)]
        let found = try context.performAndWait { try context.fetch(request) }
        let title = try found.first?.value(forKey: "title") as? String     // throws instead of raising
        print(title ?? "")                                                  // Misty Morning

        XCTAssertEqual(title, "Misty Morning")
        XCTAssertEqual(found.count, 1)
    }

    func testErrorsCaughtByType() throws {
        let container = try ExampleStack.seeded()
        let context = container.viewContext
        let post = try context.fetch(FetchRequest<Post>())[0]
        try post.setValue(-1, forKey: "views")       // breaks the model's minimum

        do {
            try context.save()
        } catch let error as ObjectValidationError {
            print(error.code, error.entity, error.key ?? "")
        } catch {
            print(error)                                  // a StoreError, a MergeConflictError, and so on
        }

        XCTAssertTrue(context.hasChanges, "a failed save keeps the context's changes")
        XCTAssertThrowsError(try context.save()) { error in
            XCTAssertEqual((error as? ObjectValidationError)?.code, .tooSmall, "\(error)")
            XCTAssertEqual((error as? ObjectValidationError)?.key, "views")
        }
    }
}
