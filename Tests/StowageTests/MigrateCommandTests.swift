import Foundation
import StoreCore
import Stowage
import StoreTestSupport
import XCTest

/// `stowage migrate`, run as a user runs it, on a store Apple's Core Data wrote with an older
/// version of its model.
final class MigrateCommandTests: XCTestCase {
    func testAnOlderAppleStoreIsMigratedFromTheCommandLine() throws {
        let directory = try TemporaryDirectory()
        guard let url = try CoreDataFixtures.copyOfStore("duckduckgo__BrowserServicesKit/Bookmarks_V3.sqlite", into: directory.url),
            let package = CoreDataFixtures.model("duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld")
        else { throw XCTSkip("the Core Data fixtures are not present") }
        let before = try Data(contentsOf: url)

        let (dryStatus, dryOutput) = try runStowage(["migrate", url.path, "--model", package.path, "--dry-run"])
        XCTAssertEqual(dryStatus, 0, dryOutput)
        XCTAssertTrue(dryOutput.contains("from BookmarksModel 3 to BookmarksModel 6"), dryOutput)
        XCTAssertTrue(dryOutput.contains("BookmarkEntity"), dryOutput)
        XCTAssertEqual(try Data(contentsOf: url), before, "a dry run changes nothing")

        let (status, output) = try runStowage(["migrate", url.path, "--model", package.path, "--to", "BookmarksModel 5"])
        XCTAssertEqual(status, 0, output)
        let bundle = try ManagedObjectModelBundle(contentsOf: package)
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(at: url)
        XCTAssertEqual(bundle.version(compatibleWithStoreMetadata: metadata)?.name, "BookmarksModel 5")

        let (againStatus, again) = try runStowage(["migrate", url.path, "--model", package.path, "--to", "BookmarksModel 5"])
        XCTAssertEqual(againStatus, 0, again)
        XCTAssertTrue(again.contains("already at version BookmarksModel 5"), again)

        let (badStatus, bad) = try runStowage(["migrate", url.path, "--model", package.path, "--to", "BookmarksModel 9"])
        XCTAssertNotEqual(badStatus, 0)
        XCTAssertTrue(bad.contains("has no version 'BookmarksModel 9'"), bad)
    }

    func testAMappingModelIsCarriedOutFromTheCommandLine() throws {
        let directory = try TemporaryDirectory()
        let package = try MappingModelFileTests.writePeoplePackage(in: directory.url)
        let mappings = directory.url.appendingPathComponent("mappings", isDirectory: true)
        let plain = try MappingModelFileTests.writeMappingModel(in: mappings, withPolicy: false)
        let store = try MappingModelFileTests.saveGraceHopper(with: try MappingModelMigrationTests.v1(), in: directory)

        let (dryStatus, dry) = try runStowage(["migrate", store.path, "--model", package.path, "--mapping", plain.path, "--dry-run"])
        XCTAssertEqual(dryStatus, 0, dry)
        XCTAssertTrue(dry.contains("PersonToHuman") || dry.contains("Person → Human"), dry)

        let (status, output) = try runStowage(["migrate", store.path, "--model", package.path, "--mapping", plain.path])
        XCTAssertEqual(status, 0, output)
        XCTAssertTrue(output.contains("with a mapping model"), output)
        let container = PersistentContainer(name: "People", managedObjectModel: try MappingModelMigrationTests.v2())
        container.persistentStoreDescriptions = [PersistentStoreDescription(url: store)]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let human = try XCTUnwrap(try context.fetch(FetchRequest<ManagedObject>(entityName: "Human")).first)
            XCTAssertEqual(try human.value(forKey: "ageInMonths") as? Int64, 1020)
        }
    }
}
