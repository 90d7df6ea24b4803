import Foundation
import StoreCore

/// Persistent history, for every SQL store: these are the stores' `PersistentHistoryStore` methods.
extension SQLStore {
    /// Fetches the transactions after the bound from `Z_HISTORYTRANSACTION`/`Z_HISTORYCHANGE` in one query
    /// (``HistoryQuery``), or deletes those up to it in one write; throws `unsupportedRequest` unless history
    /// tracking is on, and `persistentHistoryTokenExpired` for a fetch after a token older than the newest
    /// transaction a deletion removed (``SQLHistoryTables/purges``).
    public func execute(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        guard isHistoryTrackingEnabled else {
            throw StoreError(.unsupportedRequest, url: url, "the store does not record persistent history; load it with the persistentHistoryTracking option")
        }
        switch request.operation {
        case .fetch: return try fetchHistory(request)
        case .delete: return try deleteHistory(request)
        }
    }

    /// The newest committed transaction's token (``lastHistoryTransactionQuery``), or `nil` when history
    /// tracking is off or nothing has been recorded yet.
    public func currentHistoryToken() throws -> PersistentHistoryToken? {
        guard isHistoryTrackingEnabled else { return nil }
        let number = try read { connection -> Int64? in
            guard hasHistoryTables, case .integer(let number)? = try connection.scalar(lastHistoryTransactionQuery, []) else { return nil }
            return number
        }
        return number.map { PersistentHistoryToken(storeIdentifier: identifier, transactionNumber: $0) }
    }

    /// One query read into transactions, then filtered and shaped in memory. A fetch after a token
    /// reads the newest deletion after its rows: a deletion that ran before the rows were read is
    /// seen, so incomplete history is never returned as if it were whole.
    private func fetchHistory(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        let query = HistoryQuery(request, schema: schema, storeIdentifier: identifier, ranges: hasHistoryChangeRanges)
        let filter = PersistentHistoryFilter(request, storeIdentifier: identifier, predicateIsApplied: query.translatedPredicate)
        let found = try read { connection in
            guard hasHistoryTables else { return [(HistoryAssembler.Transaction, HistoryAssembler.Change?)]() }
            let collected = try connection.collect(query.sql, query.arguments) { row in
                let transaction = HistoryAssembler.Transaction(
                    number: row.int64(at: 0), timestamp: row.double(at: 1), author: row.text(at: 2), contextName: row.text(at: 3),
                    processID: row.int64(at: 4))
                // A transaction without changes comes as one row with NULL change columns.
                let change = row.isNull(at: 5) ? nil : HistoryAssembler.Change(
                    id: row.int64(at: 5), type: row.int64(at: 6), entityNumber: row.int64(at: 7), key: row.int64(at: 8),
                    columns: row.text(at: 9), tombstone: row.text(at: 10), lastKey: row.isNull(at: 11) ? nil : row.int64(at: 11))
                return (transaction, change)
            }
            if filter.fetchedAfterTransaction != nil, hasHistoryPurgeTable,
                case .integer(let purgedThrough)? = try connection.scalar("SELECT MAX(ZTRANSACTION) FROM \(SQLHistoryTables.purges)", [])
            {
                try filter.checkToken(purgedThrough: purgedThrough, url: url)
            }
            return collected
        }
        var assembler = HistoryAssembler(storeIdentifier: identifier, rows: rows, model: model)
        for (transaction, change) in found { assembler.add(transaction, change: change) }
        return try filter.result(from: assembler.finish())
    }

    private func deleteHistory(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        guard !isReadOnly else { throw StoreError(.readOnly, url: url, "the store is read-only; no history was deleted") }
        let first = dialect.parameter(1, declaredType: nil)
        let condition: String
        let arguments: [SQLValue]
        switch request.bound {
        case .date(let date): (condition, arguments) = ("ZTIMESTAMP < \(first)", [.real(date.timeIntervalSinceReferenceDate)])
        case .token(let token?):
            guard token.storeIdentifier == identifier else { return request.resultType == .count ? .count(0) : .status(true) }
            (condition, arguments) = ("Z_PK <= \(first)", [.integer(token.transactionNumber)])
        case .token(nil): (condition, arguments) = ("TRUE", [])
        }
        let count = try write { connection -> Int in
            guard hasHistoryTables else { return 0 }
            if hasHistoryPurgeTable {
                // Keep the newest transaction deleted, in one row.
                let purges = SQLHistoryTables.purges
                try connection.run(
                    "INSERT INTO \(purges) (ZTRANSACTION) SELECT Z_PK FROM \(SQLHistoryTables.transactions) WHERE \(condition) ORDER BY Z_PK DESC LIMIT 1",
                    arguments)
                try connection.run("DELETE FROM \(purges) WHERE ZTRANSACTION < (SELECT MAX(ZTRANSACTION) FROM \(purges))", [])
            }
            try connection.run(
                "DELETE FROM \(SQLHistoryTables.changes) WHERE ZTRANSACTION IN (SELECT Z_PK FROM \(SQLHistoryTables.transactions) WHERE \(condition))", arguments)
            return try connection.run("DELETE FROM \(SQLHistoryTables.transactions) WHERE \(condition)", arguments)
        }
        return request.resultType == .count ? .count(count) : .status(true)
    }
}
