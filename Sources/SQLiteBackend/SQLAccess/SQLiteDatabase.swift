import Foundation
import StoreCore
import StoreSQL

/// A SQLite connection of a store, handed to ``SQLiteStore/readDatabase(_:)`` and
/// ``SQLiteStore/writeDatabase(touching:transactionAuthor:_:)`` for SQL of your own — reports,
/// full-text search, maintenance. Valid only inside the closure it is handed to.
///
/// Arguments bind to `?` placeholders with the storage classes the store's own columns use:
/// integers, booleans (0/1), floating point, strings, `Data` (blobs), dates (seconds since
/// 2001-01-01, as Core Data stores them), UUIDs (16-byte blobs), URLs (text), decimals (text) and
/// object IDs (their primary key). Results read back as
/// `.integer`, `.double`, `.string`, `.data` or `.null`.
///
/// For example:
///
/// ```swift
/// let perPlace = try store.readDatabase { db in
///     try db.rows("SELECT ZPLACE AS place, COUNT(*) AS n FROM ZQUAKE GROUP BY ZPLACE ORDER BY n DESC LIMIT ?", [.integer(10)])
/// }
/// ```
public struct SQLiteDatabase {
    let connection: SQLiteConnection
    let store: SQLiteStore

    /// Runs one statement with arguments, or — without arguments — any number of statements.
    ///
    /// - Throws: ``/StoreCore/StoreError`` with SQLite's message.
    public func execute(_ sql: String, _ arguments: [StoreValue] = []) throws {
        try store.sqlite {
            if arguments.isEmpty { try connection.execute(sql) } else { try connection.run(sql, arguments.map(Self.sqlValue)) }
        }
    }

    /// The rows a query returns, each by column name: the same `[String: StoreValue]` as a
    /// dictionary fetch's rows (``/StoreCore/FetchedDictionary``), so
    /// `row.value("n", as: Int.self)` and ``/StoreCore/StoreValueDecoder`` read them.
    public func rows(_ sql: String, _ arguments: [StoreValue] = []) throws -> [[String: StoreValue]] {
        try store.sqlite {
            var rows: [[String: StoreValue]] = []
            try connection.query(sql, arguments.map(Self.sqlValue)) { statement in
                var row: [String: StoreValue] = [:]
                for index in 0..<statement.columnCount { row[statement.columnName(at: index)] = Self.storeValue(statement.value(at: index)) }
                rows.append(row)
            }
            return rows
        }
    }

    /// The first column of the first row, or `nil` when there is none.
    public func scalar(_ sql: String, _ arguments: [StoreValue] = []) throws -> StoreValue? {
        try store.sqlite { try connection.scalar(sql, arguments.map(Self.sqlValue)).map(Self.storeValue) }
    }

    /// The number of rows the last `INSERT`, `UPDATE` or `DELETE` changed.
    public var changes: Int { connection.changes }

    /// Arguments take the storage classes the store's own columns use.
    static func sqlValue(_ value: StoreValue) -> SQLValue { SQLiteValueCoder.encode(value) }

    static func storeValue(_ value: SQLValue) -> StoreValue {
        switch value {
        case .null: .null
        case .integer(let number): .integer(number)
        case .real(let number): .double(number)
        case .text(let text): .string(text)
        case .blob(let data): .data(data)
        }
    }
}

/// The objects a ``SQLiteStore/writeDatabase(touching:transactionAuthor:_:)`` changes, as the
/// caller declares them: recorded in persistent history as one transaction (when the store
/// tracks history), so that contexts merging history see the change.
///
/// For example:
///
/// ```swift
/// try store.writeDatabase(touching: SQLTouchedObjects(updated: [post.objectID])) { db in
///     try db.execute("UPDATE ZPOST SET ZVIEWS = ZVIEWS + 1 WHERE Z_PK = ?", [.objectID(post.objectID)])
/// }
/// ```
public struct SQLTouchedObjects: Sendable, Hashable {
    /// Objects your SQL inserted, recorded in persistent history as inserts.
    public var inserted: [ManagedObjectID]
    /// Objects your SQL updated, recorded in persistent history as updates.
    public var updated: [ManagedObjectID]
    /// Objects your SQL deleted, recorded in persistent history as deletions.
    public var deleted: [ManagedObjectID]

    /// The objects your SQL inserted, updated and deleted (none by default).
    public init(inserted: [ManagedObjectID] = [], updated: [ManagedObjectID] = [], deleted: [ManagedObjectID] = []) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    /// Nothing declared: no history is recorded.
    public static let none = SQLTouchedObjects()

    var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}
