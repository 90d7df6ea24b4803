import Foundation
import StoreCore
import StoreTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// What a crash or a stray file leaves next to an atomic store: a 0-byte file is not a store, and
/// the temporary files of crashed writers are removed when the store is opened — never a live
/// writer's.
final class AtomicStoreLeftoverTests: XCTestCase {
    private func load(_ description: PersistentStoreDescription) throws -> PersistentContainer {
        let container = PersistentContainer(name: "Store", managedObjectModel: try BlogModel.make())
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        return container
    }

    func testAnEmptyFileIsRefusedAsNotAStoreAndLeftEmpty() throws {
        for backend in [StoreBackend.binary, .xml, .json] {
            let directory = try TemporaryDirectory()
            let description = backend.description(named: "Store", in: directory)
            let url = try XCTUnwrap(description.url)
            XCTAssertTrue(FileManager.default.createFile(atPath: url.path, contents: Data()))
            XCTAssertThrowsError(try load(description), "\(backend)") { error in
                XCTAssertEqual((error as? StoreError)?.code, .wrongFormat, "\(backend): \(error)")
            }
            XCTAssertEqual(try Data(contentsOf: url), Data(), "\(backend)")
        }
    }

    /// A crashed writer's file goes at the next open however new it is (a crash test that kills
    /// writers leaves no pile of them); a file a writer holds stays.
    func testEveryUnheldTemporaryFileIsRemovedOnOpenButNotALiveWritersOne() throws {
        for backend in [StoreBackend.binary, .xml] {
            let directory = try TemporaryDirectory()
            let description = backend.description(named: "Store", in: directory)
            let url = try XCTUnwrap(description.url)
            _ = try load(description)  // the store file exists
            func leftover(age: TimeInterval) throws -> URL {
                let file = directory.file(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
                XCTAssertTrue(FileManager.default.createFile(atPath: file.path, contents: Data("half a save".utf8)))
                try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -age)], ofItemAtPath: file.path)
                return file
            }
            let stale = try leftover(age: 600)
            let recent = try leftover(age: 0)
            let live = try leftover(age: 600)
            let writer = open(live.path, O_RDONLY)
            XCTAssertEqual(flock(writer, LOCK_EX), 0)
            defer { close(writer) }
            let reopened = try load(description)
            XCTAssertFalse(FileManager.default.fileExists(atPath: stale.path), "\(backend): a crashed writer's file is removed")
            XCTAssertFalse(FileManager.default.fileExists(atPath: recent.path), "\(backend): a crashed writer's file of a moment ago is removed too")
            XCTAssertTrue(FileManager.default.fileExists(atPath: live.path), "\(backend): a file a writer holds stays")
            _ = reopened
        }
    }
}
