import Foundation
import ModelFiles
@testable import SQLiteBackend
import StoreCore
import StoreTestSupport
import XCTest

/// Saving to a store Apple's Core Data wrote keeps Core Data's layout: keys from `Z_MAX`,
/// `Z_OPT` versions, `Z_FOK_` positions for ordered relationships and the ordered
/// many-to-many join table, and every metadata key Core Data recorded.
final class AppleStoreWriteTests: XCTestCase {
    func testSavingToBookmarksV5KeepsCoreDataLayoutAndMetadata() throws {
        let directory = try TemporaryDirectory()
        guard let url = try CoreDataFixtures.copyOfStore("duckduckgo__BrowserServicesKit/Bookmarks_V5.sqlite", into: directory.url),
            let package = CoreDataFixtures.model("duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld")
        else { throw XCTSkip("the Core Data fixtures are not present beside the repository") }
        let model = try XCTUnwrap(try ManagedObjectModelBundle(contentsOf: package).version(named: "BookmarksModel 5")).model
        let metadataBefore = try Self.rawMetadata(url)
        let maxBefore = try Self.integer(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'BookmarkEntity'")

        let container = try TestStack.sqliteContainer(model, at: url)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let all = try context.fetch(FetchRequest<ManagedObject>(entityName: "BookmarkEntity"))
            let byTitle = Dictionary(all.compactMap { object in (try? object.value(forKey: "title") as? String).map { ($0, object) } }, uniquingKeysWith: { first, _ in first })
            let root = try XCTUnwrap(byTitle["bookmarks_root"])
            let favorites = try XCTUnwrap(byTitle["favorites_root"])
            let added = try context.insertNewObject(forEntityName: "BookmarkEntity")
            try added.setValue("added", forKey: "title")
            try added.setValue("https://example.com", forKey: "url")
            try added.setValue(UUID().uuidString, forKey: "uuid")
            try added.setValue(false, forKey: "isFolder")
            try added.setValue(root, forKey: "parent")
            var favoriteList = try favorites.value(forKey: "favorites") as? [ManagedObject] ?? []
            favoriteList.append(added)
            try favorites.setValue(favoriteList, forKey: "favorites")
            try byTitle["4"]?.setValue("four", forKey: "title")
            try context.save()
        }
        try container.persistentStoreCoordinator.persistentStores.forEach { try container.persistentStoreCoordinator.removePersistentStore($0) }

        let newKey = try Self.integer(url, "SELECT Z_PK FROM ZBOOKMARKENTITY WHERE ZTITLE = 'added'")
        XCTAssertEqual(newKey, maxBefore + 1, "the new object's key comes from Z_PRIMARYKEY.Z_MAX")
        XCTAssertEqual(try Self.integer(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'BookmarkEntity'"), maxBefore + 1)
        XCTAssertEqual(try Self.integer(url, "SELECT Z_ENT FROM ZBOOKMARKENTITY WHERE ZTITLE = 'added'"), 1)
        XCTAssertEqual(try Self.integer(url, "SELECT Z_OPT FROM ZBOOKMARKENTITY WHERE ZTITLE = 'four'"), 2, "an update bumps Z_OPT")

        // The new child comes last among the root's children, with Core Data's 1024 spacing.
        let rootKey = try Self.integer(url, "SELECT Z_PK FROM ZBOOKMARKENTITY WHERE ZTITLE = 'bookmarks_root'")
        let positions = try Self.integers(url, "SELECT Z_FOK_PARENT FROM ZBOOKMARKENTITY WHERE ZPARENT = \(rootKey) ORDER BY Z_FOK_PARENT")
        let addedPosition = try Self.integer(url, "SELECT Z_FOK_PARENT FROM ZBOOKMARKENTITY WHERE ZTITLE = 'added'")
        XCTAssertEqual(positions.last, addedPosition)
        XCTAssertTrue(positions.allSatisfy { $0 % 1024 == 0 } && Set(positions).count == positions.count, "\(positions)")
        let favoritePositions = try Self.integers(url, "SELECT Z_FOK_1FAVORITES FROM Z_1FAVORITES ORDER BY Z_FOK_1FAVORITES")
        let addedFavorite = try Self.integer(url, "SELECT Z_FOK_1FAVORITES FROM Z_1FAVORITES WHERE Z_1FAVORITES = \(newKey)")
        XCTAssertEqual(favoritePositions.last, addedFavorite, "appended to the ordered many-to-many")

        let metadataAfter = try Self.rawMetadata(url)
        XCTAssertTrue(Set(metadataBefore.keys).isSubset(of: Set(metadataAfter.keys)), "Core Data's metadata keys are kept: \(metadataAfter.keys.sorted())")
        XCTAssertEqual(metadataAfter["NSStoreModelVersionHashes"], metadataBefore["NSStoreModelVersionHashes"], "Core Data's hashes still name the model")
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly, log: .disabled)
        XCTAssertEqual(try connection.scalar("PRAGMA integrity_check"), .text("ok"))

        // And it reads back.
        let again = try TestStack.sqliteContainer(model, at: url) { $0.isReadOnly = true }
        let readBack = again.newBackgroundContext()
        let count = try readBack.performAndWait { try readBack.count(for: FetchRequest<ManagedObject>(entityName: "BookmarkEntity")) }
        XCTAssertEqual(count, 11)
    }

    private static func rawMetadata(_ url: URL) throws -> [String: PropertyListValue] {
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly, log: .disabled)
        guard case .blob(let data)? = try connection.scalar("SELECT Z_PLIST FROM Z_METADATA"),
            case .dictionary(let entries) = try BinaryPropertyListReader().read(data)
        else { throw XCTSkip("no metadata") }
        return entries
    }

    private static func integer(_ url: URL, _ sql: String) throws -> Int64 {
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly, log: .disabled)
        guard case .integer(let value)? = try connection.scalar(sql) else { return 0 }
        return value
    }

    private static func integers(_ url: URL, _ sql: String) throws -> [Int64] {
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly, log: .disabled)
        var values: [Int64] = []
        try connection.query(sql) { values.append($0.int64(at: 0)) }
        return values
    }
}
