import Foundation
import StoreCore
import StoreTestSupport
import XCTest

final class FetchRequestTemplateTests: XCTestCase {
    private func model() throws -> ManagedObjectModel {
        var popular = StoreFetchRequest(entityName: "Note")
        popular.predicate = try StorePredicate(format: "likes >= $minimum AND text BEGINSWITH[c] $prefix")
        popular.sortDescriptors = [.descending("likes")]
        return try ManagedObjectModel(fetchRequestTemplates: ["popular": popular]) {
            EntityDescription("Note") {
                .attribute("text", .string)
                .attribute("likes", .integer32)
            }
        }
    }

    func testTemplatesAreStoredAndSubstituted() throws {
        let model = try model()
        let context = try TestStack.context(model)
        try context.performAndWait {
            for (text, likes) in [("Swift on Linux", 10), ("swift tips", 3), ("Rust", 50), ("SwiftPM", 20)] {
                let note = try context.insertNewObject(forEntityName: "Note")
                try note.setValue(text, forKey: "text")
                try note.setValue(likes, forKey: "likes")
            }
            try context.save()
            let request: FetchRequest<ManagedObject> = try model.fetchRequestFromTemplate(
                withName: "popular", substitutionVariables: ["minimum": 5, "prefix": "swift"])
            XCTAssertEqual(try context.fetch(request).compactMap { try $0.value(forKey: "text") as? String }, ["SwiftPM", "Swift on Linux"])
            XCTAssertEqual(model.fetchRequestTemplate(forName: "popular")?.predicate?.variableNames, ["minimum", "prefix"])
        }
    }

    func testMissingTemplatesAndVariablesAreClearErrors() throws {
        let model = try model()
        XCTAssertThrowsError(try model.fetchRequestFromTemplate(withName: "nope") as FetchRequest<ManagedObject>) { error in
            XCTAssertEqual((error as? ModelError)?.code, .unknownFetchRequestTemplate)
        }
        XCTAssertThrowsError(try model.fetchRequestFromTemplate(withName: "popular", substitutionVariables: ["minimum": 1]) as FetchRequest<ManagedObject>) { error in
            XCTAssertEqual((error as? FetchError)?.code, .unboundVariable)
            XCTAssertTrue("\(error)".contains("$prefix"), "\(error)")
        }
        XCTAssertThrowsError(try ManagedObjectModel(fetchRequestTemplates: ["bad": StoreFetchRequest(entityName: "Ghost")]) {
            EntityDescription("Note") { .attribute("text", .string) }
        }) { error in
            XCTAssertEqual((error as? ModelError)?.code, .unknownEntity)
        }
    }
}
