import XCTest
@testable import SQLiteBackend
import StoreCore
import StoreSQL
import StoreTestSupport

/// Text SQLite holds need not be UTF-8 (`CAST(X'…' AS TEXT)`, another program's writes): a
/// store reads such text with each invalid byte replaced by U+FFFD, never crashing, and valid
/// text exactly.
final class SQLiteTextDecodingTests: XCTestCase {
    func testInvalidUTF8TextReadsWithReplacementCharacters() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("blog.sqlite")
        let container = try TestStack.sqliteContainer(at: url)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for title in ["bad", "good"] { try Post(context: context).title = title }
            try context.save()
        }
        try container.persistentStoreCoordinator.persistentStores.forEach { try container.persistentStoreCoordinator.removePersistentStore($0) }
        let writer = try SQLiteConnection(path: url.path, mode: .readWrite, log: .disabled)
        try writer.execute("UPDATE ZPOST SET ZTITLE = CAST(X'61FF62C3' AS TEXT) WHERE ZTITLE = 'bad'")
        try writer.execute("UPDATE ZPOST SET ZTITLE = 'caf\u{E9} \u{1F375}' WHERE ZTITLE = 'good'")

        let reopened = try TestStack.sqliteContainer(at: url)
        let reader = reopened.newBackgroundContext()
        try reader.performAndWait {
            var request = FetchRequest<Post>()
            request.sortDescriptors = [.ascending("title")]
            request.returnsObjectsAsFaults = false
            XCTAssertEqual(try reader.fetch(request).map(\.title), ["a\u{FFFD}b\u{FFFD}", "caf\u{E9} \u{1F375}"])
        }
    }
}
