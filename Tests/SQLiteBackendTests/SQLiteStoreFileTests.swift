import Foundation
@testable import SQLiteBackend
import StoreCore
import StoreTestSupport
import XCTest

/// Creating, reopening and refusing store files.
final class SQLiteStoreFileTests: XCTestCase {
    func testSchemaFollowsCoreDataLayoutAndReopens() throws {
        let stack = try SQLiteTestStore()
        try stack.savePosts(["a"])
        let tables = Set(try stack.column("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { value -> String? in
            if case .text(let name) = value { return name } else { return nil }
        })
        XCTAssertTrue(tables.isSuperset(of: ["ZPOST", "ZCOMMENT", "ZTAG", "ZPHOTO", "ZAUTHOR", "Z_PRIMARYKEY", "Z_METADATA"]), "\(tables)")
        let post = try XCTUnwrap(try stack.column("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Post'").first)
        XCTAssertTrue(tables.contains("Z_\(post)TAGS"), "Post owns the join table of Post.tags/Tag.posts (its name sorts last): \(tables)")
        XCTAssertEqual(try stack.column("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Post'"), [.integer(1)])
        XCTAssertEqual(try stack.column("PRAGMA journal_mode"), [.text("wal")])
        XCTAssertEqual(try stack.column("SELECT COUNT(*) FROM sqlite_master WHERE name = 'Z_Post_byTime'"), [.integer(1)], "fetch index created")
        let identifier = try stack.store.identifier
        let reopened = try TestStack.sqliteContainer(at: stack.url)
        let store = try XCTUnwrap(reopened.persistentStoreCoordinator.persistentStores.first)
        XCTAssertEqual(store.identifier, identifier, "the store UUID is kept in Z_METADATA")
        XCTAssertEqual(
            store.metadata.modelVersionHashes, try BlogModel.make().coreDataEntityVersionHashesByName,
            "Core Data's hashes, so that Core Data opens the store without migrating it")

        // A store an earlier Stowage made records Stowage's own hashes: it still opens.
        var earlier = store.metadata
        earlier.modelVersionHashes = try BlogModel.make().entityVersionHashesByName
        let connection = try SQLiteConnection(path: stack.url.path, mode: .readWrite, log: .disabled)
        try SQLiteStoreOpener.writeMetadata(earlier, on: connection)
        let again = try TestStack.sqliteContainer(at: stack.url)
        XCTAssertEqual(again.persistentStoreCoordinator.persistentStores.first?.metadata.modelVersionHashes, earlier.modelVersionHashes)
    }

    /// Core Data's numbering: depth-first through the inheritance tree (`Item`'s sub-entities
    /// right after it), roots and siblings in case-insensitive name order.
    func testEntityNumbersFollowCoreDatasOrder() throws {
        let stack = try SQLiteTestStore()
        let names = try stack.column("SELECT Z_NAME FROM Z_PRIMARYKEY ORDER BY Z_ENT").compactMap { value -> String? in
            if case .text(let name) = value { return name } else { return nil }
        }
        XCTAssertEqual(names, ["Author", "Comment", "Item", "Book", "Film", "Photo", "Post", "Tag"])
        XCTAssertEqual(names.count, try BlogModel.make().entities.count)
    }

    func testMetadataSurvivesReopening() throws {
        let stack = try SQLiteTestStore()
        let coordinator = stack.container.persistentStoreCoordinator
        let store = try stack.store
        var metadata = coordinator.metadata(for: store)
        metadata.userInfo["importedAt"] = .integer(1234)
        try coordinator.setMetadata(metadata, for: store)
        let reopened = try TestStack.sqliteContainer(at: stack.url)
        let again = try XCTUnwrap(reopened.persistentStoreCoordinator.persistentStores.first)
        XCTAssertEqual(again.metadata.userInfo["importedAt"], .integer(1234))
    }

    func testDevNullGivesAPrivateInMemoryDatabase() throws {
        let first = try TestStack.sqliteContainer(at: URL(fileURLWithPath: "/dev/null"))
        let context = first.newBackgroundContext()
        try context.performAndWait {
            let post = try Post(context: context)
            post.title = "in memory"
            try context.save()
            XCTAssertEqual(try context.fetch(FetchRequest<Post>()).map(\.title), ["in memory"])
        }
        let second = try TestStack.sqliteContainer(at: URL(fileURLWithPath: "/dev/null"))
        XCTAssertEqual(try second.viewContext.performAndWait { try second.viewContext.count(for: FetchRequest<Post>()) }, 0, "each /dev/null store is its own database")
    }

    func testNonSQLiteFileIsRefusedAndLeftUntouched() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("notes.sqlite")
        let contents = Data("these are my notes, not a database\n".utf8)
        try contents.write(to: url)
        XCTAssertThrowsError(try TestStack.sqliteContainer(at: url)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .corrupt, "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: url), contents)
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path + "-wal"))
    }

    func testCorruptDatabaseGivesAClearError() throws {
        let stack = try SQLiteTestStore()
        try stack.savePosts(["a"])
        let copy = stack.directory.file("Damaged.sqlite")
        var bytes = try Data(contentsOf: stack.url)
        // Keep SQLite's header so the file claims to be a database, and scramble the rest.
        for index in stride(from: 100, to: bytes.count, by: 7) { bytes[index] = 0xA5 }
        try bytes.write(to: copy)
        XCTAssertThrowsError(try TestStack.sqliteContainer(at: copy)) { error in
            let code = (error as? StoreError)?.code
            XCTAssertTrue(code == .corrupt || code == .io, "\(error)")
            let cause = (error as? StoreError)?.underlyingError as? SQLiteError
            XCTAssertNotNil(cause, "SQLite's own error is kept: \(error)")
            XCTAssertTrue(cause?.resultCode == 26 || cause?.resultCode == 11, "SQLITE_NOTADB or SQLITE_CORRUPT: \(String(describing: cause))")
        }
        XCTAssertEqual(try Data(contentsOf: copy), bytes, "the damaged file is left as it was")
    }

    func testStoreOfAnotherModelIsRefused() throws {
        let stack = try SQLiteTestStore()
        let other = try ManagedObjectModel {
            EntityDescription("Note") { .attribute("text", .string) }
        }
        XCTAssertThrowsError(try TestStack.sqliteContainer(other, at: stack.url)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .incompatibleModel, "\(error)")
        }
    }

    func testARefusedOpenLeavesARollbackJournalStoreAsItWas() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Journal.sqlite")
        let created = try TestStack.sqliteContainer(at: url) { $0.setSQLitePragma("journal_mode", "DELETE") }
        for store in created.persistentStoreCoordinator.persistentStores { try created.persistentStoreCoordinator.removePersistentStore(store) }
        let before = try Data(contentsOf: url)
        let other = try ManagedObjectModel { EntityDescription("Note") { .attribute("text", .string) } }
        XCTAssertThrowsError(try TestStack.sqliteContainer(other, at: url)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .incompatibleModel, "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: url), before, "the file is byte for byte as it was (still a rollback-journal database)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path + "-wal"))
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly, log: .disabled)
        XCTAssertEqual(try connection.scalar("PRAGMA journal_mode"), .text("delete"))
    }

    func testADamagedPrimaryKeyTableIsRefusedNamingTheRowInsteadOfHanging() throws {
        let damages = [
            "UPDATE Z_PRIMARYKEY SET Z_SUPER = (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Comment') WHERE Z_NAME = 'Post'; UPDATE Z_PRIMARYKEY SET Z_SUPER = (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Post') WHERE Z_NAME = 'Comment'",
            "UPDATE Z_PRIMARYKEY SET Z_ENT = 0 WHERE Z_NAME = 'Tag'",
            "UPDATE Z_PRIMARYKEY SET Z_SUPER = 999 WHERE Z_NAME = 'Photo'",
        ]
        for damage in damages {
            let stack = try SQLiteTestStore()
            try stack.savePosts(["a"])
            let url = stack.url
            for store in stack.container.persistentStoreCoordinator.persistentStores { try stack.container.persistentStoreCoordinator.removePersistentStore(store) }
            let connection = try SQLiteConnection(path: url.path, mode: .readWrite, log: .disabled)
            try connection.execute(damage)
            XCTAssertThrowsError(try SQLiteModelInference(url: url).infer(), damage) { error in
                XCTAssertEqual((error as? StoreError)?.code, .corrupt, "\(error)")
                XCTAssertTrue("\(error)".contains("Z_PRIMARYKEY"), "\(error)")
            }
            XCTAssertThrowsError(try TestStack.sqliteContainer(at: url), damage) { error in
                XCTAssertEqual((error as? StoreError)?.code, .corrupt, "\(error)")
            }
        }
    }

    func testAStoreOnReadOnlyMediaOpensReadOnlyAndInspects() throws {
        guard let media = TemporaryFileSystem(size: "8m") else {
            throw XCTSkip("this test mounts a small tmpfs and remounts it read-only; mounting is not permitted here")
        }
        let url = media.url.appendingPathComponent("Blog.sqlite")
        let writer = try TestStack.sqliteContainer(at: url)
        let context = writer.newBackgroundContext()
        try context.performAndWait {
            let post = try Post(context: context)
            post.title = "On a CD"
            try context.save()
        }
        for store in writer.persistentStoreCoordinator.persistentStores { try writer.persistentStoreCoordinator.removePersistentStore(store) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path + "-shm"), "closed cleanly: no shared-memory file left")
        XCTAssertTrue(media.remountReadOnly())

        let reader = try TestStack.sqliteContainer(at: url) { $0.isReadOnly = true }
        let readContext = reader.newBackgroundContext()
        let titles = try readContext.performAndWait { try readContext.fetch(FetchRequest<Post>()).map(\.title) }
        XCTAssertEqual(titles, ["On a CD"])
        XCTAssertEqual(try SQLiteModelInference(url: url).infer().model.entitiesByName["Post"]?.name, "Post")
    }
}
