#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import StoreCore
import StoreSQL

/// The tables persistent history lives in, in the store's schema, written in the same
/// transaction as the changes they describe. Transaction numbers come from a sequence (so they
/// keep growing after history is deleted) and are taken under a transaction-scoped advisory
/// lock held until commit, so transactions become visible in the order of their numbers — a
/// reader that saw number n never later finds a smaller one. `Z_HISTORYPURGE` remembers the
/// newest transaction a deletion removed, which older tokens have outlived.
enum PostgresHistoryTables {
    static let transactions = SQLHistoryTables.transactions
    static let changes = SQLHistoryTables.changes
    static let purges = SQLHistoryTables.purges

    static let ddl = [
        """
        CREATE TABLE IF NOT EXISTS \(transactions) (Z_PK BIGSERIAL PRIMARY KEY, ZTIMESTAMP DOUBLE PRECISION NOT NULL, \
        ZAUTHOR TEXT, ZCONTEXTNAME TEXT, ZPROCESSID BIGINT NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS Z_HISTORYTRANSACTION_TIMESTAMP ON \(transactions) (ZTIMESTAMP)",
        """
        CREATE TABLE IF NOT EXISTS \(changes) (Z_PK BIGSERIAL PRIMARY KEY, ZTRANSACTION BIGINT NOT NULL, \
        ZCHANGETYPE BIGINT NOT NULL, ZENTITY BIGINT NOT NULL, ZENTITYPK BIGINT NOT NULL, ZCOLUMNS TEXT, ZTOMBSTONE TEXT)
        """,
        "CREATE INDEX IF NOT EXISTS Z_HISTORYCHANGE_TRANSACTION ON \(changes) (ZTRANSACTION)",
        "CREATE INDEX IF NOT EXISTS Z_HISTORYCHANGE_OBJECT ON \(changes) (ZENTITY, ZENTITYPK, ZTRANSACTION)",
        "CREATE TABLE IF NOT EXISTS \(purges) (ZTRANSACTION BIGINT NOT NULL)",
        // Ranges of changes (added after the rest: a store made before gets the column here).
        "ALTER TABLE \(changes) ADD COLUMN IF NOT EXISTS \(SQLHistoryTables.lastKey) BIGINT",
        SQLHistoryTables.rangeIndexDDL,
    ]

    /// The objects added to ``ddl`` after the first stores were made (the table of deletions,
    /// then the index of change ranges with the column it indexes): a store missing one gets
    /// what it lacks; one with all of them has everything.
    static let addedLater = [purges, SQLHistoryTables.rangeIndex]

    static func create(on connection: PostgresSession) throws {
        for statement in ddl { try connection.run(statement) }
    }

    /// The change key sequence's name, for `nextval`/`setval` (the table name is folded like
    /// any unquoted name, the column name is taken as written).
    static let changeSequence = "pg_get_serial_sequence('\(changes)', 'z_pk')"

    /// Takes the store's history lock until the current transaction ends.
    static func lock(on connection: PostgresSession, schema: String) throws {
        try connection.run("SELECT pg_advisory_xact_lock(hashtext($1))", [.text("stowage.history." + schema)])
    }
}
#endif
