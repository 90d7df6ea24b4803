import Foundation
@testable import SQLiteBackend
import StoreCore
import StoreSQL
import StoreTestSupport
import XCTest

/// A blog store in a temporary directory, with helpers to reach the SQLite store behind it.
final class SQLiteTestStore {
    let directory: TemporaryDirectory
    let url: URL
    let container: PersistentContainer
    let model: ManagedObjectModel?

    init(_ model: ManagedObjectModel? = nil, configure: (inout PersistentStoreDescription) -> Void = { _ in }) throws {
        self.model = model
        directory = try TemporaryDirectory()
        url = directory.file("Blog.sqlite")
        container = try TestStack.sqliteContainer(model, at: url, configure: configure)
    }

    var store: SQLiteStore {
        get throws { try XCTUnwrap(container.persistentStoreCoordinator.persistentStores.first as? SQLiteStore) }
    }

    /// A second container on the same file, with its own coordinator (and so an empty
    /// snapshot cache), and its store.
    func reopen() throws -> (container: PersistentContainer, store: SQLiteStore) {
        let container = try TestStack.sqliteContainer(model, at: url)
        return (container, try XCTUnwrap(container.persistentStoreCoordinator.persistentStores.first as? SQLiteStore))
    }

    /// Queries the store has run so far.
    var queries: Int { get throws { try store.queryCount } }

    /// Saves posts titled `titles`, each with `comments` comments, and returns their IDs.
    @discardableResult
    func savePosts(_ titles: [String], comments: Int = 0) throws -> [ManagedObjectID] {
        let context = container.newBackgroundContext()
        return try context.performAndWait {
            let posts = try titles.map { title in
                let post = try Post(context: context)
                post.title = title
                for n in 0..<comments {
                    let comment = try Comment(context: context)
                    comment.text = "\(title) \(n)"
                    comment.post = post
                }
                return post
            }
            try context.save()
            return posts.map(\.objectID)
        }
    }

    /// Runs `sql` on a separate connection and returns the first column of every row.
    func column(_ sql: String) throws -> [SQLValue] {
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly, log: .disabled)
        var values: [SQLValue] = []
        try connection.query(sql) { values.append($0.value(at: 0)) }
        return values
    }
}
