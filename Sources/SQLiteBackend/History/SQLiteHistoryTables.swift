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
        ZCHANGETYPE INTEGER NOT NULL, ZENTITY INTEGER NOT NULL, ZENTITYPK INTEGER NOT NULL, ZCOLUMNS VARCHAR, ZTOMBSTONE VARCHAR)
        """,
        "CREATE INDEX IF NOT EXISTS Z_HISTORYCHANGE_TRANSACTION ON \(changes) (ZTRANSACTION)",
        "CREATE INDEX IF NOT EXISTS Z_HISTORYCHANGE_OBJECT ON \(changes) (ZENTITY, ZENTITYPK, ZTRANSACTION)",
        "CREATE TABLE IF NOT EXISTS \(purges) (ZTRANSACTION INTEGER NOT NULL)",
    ]

    static func create(on connection: SQLiteConnection) throws {
        for statement in ddl { try connection.execute(statement) }
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
