import Foundation
import StoreCore
import StoreSQL

/// The tables persistent history lives in, inside the store and written in the same SQLite
/// transaction as the changes they describe (docs/sqlite-layout.md, "Persistent history").
///
/// `AUTOINCREMENT` keeps transaction numbers (tokens) and change IDs growing even after history
/// is deleted; `Z_HISTORYPURGE` remembers the newest transaction a deletion removed, which older
/// tokens have outlived.
enum SQLiteHistoryTables {
    static let transactions = SQLHistoryTables.transactions
    static let changes = SQLHistoryTables.changes
    static let purges = SQLHistoryTables.purges

    static let ddl = [
        """
        CREATE TABLE IF NOT EXISTS \(transactions) (Z_PK INTEGER PRIMARY KEY AUTOINCREMENT, ZTIMESTAMP TIMESTAMP NOT NULL, \
        ZAUTHOR VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID INTEGER NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS Z_HISTORYTRANSACTION_TIMESTAMP ON \(transactions) (ZTIMESTAMP)",
        """
        CREATE TABLE IF NOT EXISTS \(changes) (Z_PK INTEGER PRIMARY KEY AUTOINCREMENT, ZTRANSACTION INTEGER NOT NULL, \
        ZCHANGETYPE INTEGER NOT NULL, ZENTITY INTEGER NOT NULL, ZENTITYPK INTEGER NOT NULL, ZCOLUMNS VARCHAR, ZTOMBSTONE VARCHAR, \
        \(SQLHistoryTables.lastKey) INTEGER)
        """,
        "CREATE INDEX IF NOT EXISTS Z_HISTORYCHANGE_TRANSACTION ON \(changes) (ZTRANSACTION)",
        "CREATE INDEX IF NOT EXISTS Z_HISTORYCHANGE_OBJECT ON \(changes) (ZENTITY, ZENTITYPK, ZTRANSACTION)",
        "CREATE TABLE IF NOT EXISTS \(purges) (ZTRANSACTION INTEGER NOT NULL)",
    ]

    /// The index of ranges (the rows with a last key), made once the column is there.
    static let rangeIndex = SQLHistoryTables.rangeIndexDDL

    /// Creates what is missing: the tables, and in a file written before ranges were recorded,
    /// the column of ranges (every older row is one object, which the column left `NULL` says).
    static func create(on connection: SQLiteConnection) throws {
        for statement in ddl { try connection.execute(statement) }
        if try !rangesExist(on: connection) {
            try connection.execute("ALTER TABLE \(changes) ADD COLUMN \(SQLHistoryTables.lastKey) INTEGER")
        }
        try connection.execute(rangeIndex)
    }

    /// Whether `Z_HISTORYCHANGE` has the column of ranges.
    static func rangesExist(on connection: SQLiteConnection) throws -> Bool {
        try connection.scalar(
            "SELECT 1 FROM pragma_table_info('\(changes)') WHERE name = ?", [.text(SQLHistoryTables.lastKey)]) != nil
    }

    static func exist(on connection: SQLiteConnection) throws -> Bool {
        try tableExists(changes, on: connection)
    }

    /// Whether the table of history deletions is there (a file written before Stowage recorded
    /// them, opened read-only, has none).
    static func purgesExist(on connection: SQLiteConnection) throws -> Bool {
        try tableExists(purges, on: connection)
    }

    private static func tableExists(_ name: String, on connection: SQLiteConnection) throws -> Bool {
        try connection.scalar("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(name)]) != nil
    }
}
