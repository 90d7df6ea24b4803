import Foundation
@testable import SQLiteBackend
import StoreCore
import StoreTestSupport
import XCTest

/// A store written by Apple's Core Data (DuckDuckGo's bookmarks, model version 4) opens with
/// its model, read-only, and its objects read back — ordered to-many and ordered many-to-many
/// included — which shows our layout is Core Data's.
final class AppleStoreTests: XCTestCase {
    private static func bookmarksModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("BookmarkEntity") {
                .attribute("isFolder", .boolean, optional: false, defaultValue: false)
                .attribute("isPendingDeletion", .boolean, defaultValue: false)
                .attribute("modifiedAt", .date)
                .attribute("title", .string)
                .attribute("url", .string)
                .attribute("uuid", .string, optional: false, defaultValue: "")
                .toMany("children", destination: "BookmarkEntity", inverse: "parent", ordered: true, deleteRule: .cascade)
                .toMany("favoriteFolders", destination: "BookmarkEntity", inverse: "favorites")
                .toMany("favorites", destination: "BookmarkEntity", inverse: "favoriteFolders", ordered: true)
                .toOne("parent", destination: "BookmarkEntity", inverse: "children")
            }
        }
    }

    func testBookmarksStoreWrittenByCoreDataReadsWithItsModel() throws {
        let directory = try TemporaryDirectory()
        guard let url = try CoreDataFixtures.copyOfStore("duckduckgo__BrowserServicesKit/Bookmarks_V4.sqlite", into: directory.url) else {
            throw XCTSkip("the Core Data fixtures are not present beside the repository")
        }
        let original = try Data(contentsOf: url)
        let container = try TestStack.sqliteContainer(try Self.bookmarksModel(), at: url) { $0.isReadOnly = true }
        let store = try XCTUnwrap(container.persistentStoreCoordinator.persistentStores.first)
        XCTAssertEqual(store.metadata.storeType, "sqlite")
        XCTAssertEqual(store.metadata.modelVersionHashes.count, 1, "Core Data's own hashes are kept")
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let all = try context.fetch(FetchRequest<ManagedObject>(entityName: "BookmarkEntity"))
            XCTAssertEqual(all.count, 10)
            func titles(_ objects: Any?) -> [String] {
                ((objects as? [ManagedObject]) ?? []).compactMap { try? $0.value(forKey: "title") as? String }
            }
            var request = FetchRequest<ManagedObject>(entityName: "BookmarkEntity")
            request.sortDescriptors = [.ascending("title")]
            let byTitle = Dictionary(uniqueKeysWithValues: try context.fetch(request).compactMap { object in
                (try? object.value(forKey: "title") as? String).map { ($0, object) }
            })
            let bookmarks = try XCTUnwrap(byTitle["bookmarks_root"])
            XCTAssertEqual(titles(try bookmarks.value(forKey: "children")), ["1", "2", "3", "4", "5"])
            let folder = try XCTUnwrap(byTitle["3"])
            XCTAssertEqual(try folder.value(forKey: "isFolder") as? Bool, true)
            XCTAssertEqual(titles(try folder.value(forKey: "children")), ["31", "32", "33"])
            XCTAssertTrue(try folder.value(forKey: "parent") as? ManagedObject === bookmarks)
            let favorites = try XCTUnwrap(byTitle["favorites_root"])
            XCTAssertEqual(titles(try favorites.value(forKey: "favorites")), ["5", "4", "33", "32", "2"])
            XCTAssertEqual(try byTitle["4"]?.value(forKey: "url") as? String, "4")
            XCTAssertNotNil(try byTitle["4"]?.value(forKey: "modifiedAt") as? Date)
        }
        XCTAssertThrowsError(try context.performAndWait {
            _ = try context.insertNewObject(forEntityName: "BookmarkEntity")
            try context.save()
        }) { error in XCTAssertEqual((error as? StoreError)?.code, .readOnly, "\(error)") }
        XCTAssertEqual(try Data(contentsOf: url), original, "a read-only store is not written")
    }
}
