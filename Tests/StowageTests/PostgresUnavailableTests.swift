#if !Postgres  // with the Postgres trait these requests reach a real server (PostgresProcessTests, PostgresBackendTests)
import Foundation
import Stowage
import StoreTestSupport
import XCTest

/// Without the `Postgres` package trait, every way of asking for a PostgreSQL store — the
/// container, the coordinator, the metadata reader, and the command-line tool — fails with
/// `StoreError` `storeTypeUnavailable` naming the trait and the dependency line, and touches
/// nothing: no crash, no other store type in its place.
final class PostgresUnavailableTests: XCTestCase {
    /// A server that is never contacted (the request fails before any connection).
    private let server = URL(string: "postgres://app@127.0.0.1:1/blog?schema=unavailable")!

    private func assertTellsHowToEnableTheTrait(_ error: any Error, file: StaticString = #filePath, line: UInt = #line) {
        guard let error = error as? StoreError else {
            return XCTFail("expected a StoreError, got \(type(of: error)): \(error)", file: file, line: line)
        }
        XCTAssertEqual(error.code, .storeTypeUnavailable, file: file, line: line)
        XCTAssertTrue(error.message.contains(#"traits: ["Postgres"]"#), error.message, file: file, line: line)
        XCTAssertTrue(error.message.contains("--traits Postgres"), error.message, file: file, line: line)
    }

    func testTheContainerRefusesAPostgresURLWithTheTraitToTurnOn() throws {
        let container = PersistentContainer(name: "Blog", managedObjectModel: try SaveLoopStore.makeModel())
        container.persistentStoreDescriptions = [PersistentStoreDescription(url: server)]
        XCTAssertThrowsError(try container.loadPersistentStores()) { assertTellsHowToEnableTheTrait($0) }
        XCTAssertTrue(container.persistentStoreCoordinator.persistentStores.isEmpty, "no other store was loaded in its place")
    }

    func testTheCoordinatorRefusesThePostgresTypeWithTheTraitToTurnOn() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try SaveLoopStore.makeModel())
        XCTAssertThrowsError(try coordinator.addPersistentStore(with: PersistentStoreDescription(type: .postgres, url: server))) {
            assertTellsHowToEnableTheTrait($0)
        }
        XCTAssertTrue(coordinator.persistentStores.isEmpty)
        XCTAssertFalse(PersistentStoreRegistry.registeredTypes.contains(.postgres), "the type is not registered")
        XCTAssertTrue(PersistentStoreRegistry.registeredTypes.contains(.sqlite), "the other built-in types are")
    }

    func testReadingAServersMetadataRefusesWithTheTraitToTurnOn() {
        XCTAssertThrowsError(try PersistentStoreRegistry.metadata(ofType: .postgres, at: server)) { assertTellsHowToEnableTheTrait($0) }
    }

    func testAnUnregisteredTypeOfYourOwnIsStillUnknown() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try SaveLoopStore.makeModel())
        XCTAssertThrowsError(try coordinator.addPersistentStore(with: PersistentStoreDescription(type: PersistentStoreType(rawValue: "nowhere"), url: server))) {
            XCTAssertEqual(($0 as? StoreError)?.code, .unknownStoreType)
        }
    }

    func testTheToolRefusesPostgresStoresWithTheTraitToTurnOn() throws {
        let directory = try TemporaryDirectory()
        let sqlite = directory.file("Blog.sqlite").path
        let runs = [
            ["demo", "--store", "postgres", "--url", server.absoluteString],
            ["export", sqlite, "--to", "postgres", server.absoluteString],
            ["export", server.absoluteString, "--model", "demo", "--to", "xml", directory.file("Blog.xml").path],
            ["inspect", server.absoluteString, "--model", "demo"],
        ]
        XCTAssertEqual(try runStowage(["demo", "--path", sqlite]).status, 0)
        for arguments in runs {
            let run = try runStowage(arguments)
            XCTAssertNotEqual(run.status, 0, "stowage \(arguments.joined(separator: " ")):\n\(run.output)")
            XCTAssertTrue(run.output.contains(#"traits: ["Postgres"]"#), "stowage \(arguments.joined(separator: " ")):\n\(run.output)")
            XCTAssertFalse(run.output.contains("Fatal error") || run.output.contains("Crash"), run.output)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("Blog.xml").path), "nothing was written")
    }
}
#endif
