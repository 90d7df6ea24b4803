import Foundation
import StoreCore
import StoreSQL

extension SQLiteStore: PersistentHistoryStore {
    public func execute(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        guard isHistoryTrackingEnabled else {
            throw StoreError(.unsupportedRequest, url: url, "the store does not record persistent history; load it with the persistentHistoryTracking option")
        }
        switch request.operation {
        case .fetch: return try fetchHistory(request)
        case .delete: return try deleteHistory(request)
        }
    }

    public func currentHistoryToken() throws -> PersistentHistoryToken? {
        guard isHistoryTrackingEnabled else { return nil }
        let number = try read { connection -> Int64? in
            guard hasHistoryTables else { return nil }
            guard case .integer(let number)? = try connection.scalar("SELECT seq FROM sqlite_sequence WHERE name = ?", [.text(HistoryTables.transactions)]) else { return nil }
            return number
        }
        return number.map { PersistentHistoryToken(storeIdentifier: identifier, transactionNumber: $0) }
    }

    /// One query (``HistoryQuery``) read into transactions, then filtered and shaped in memory.
    private func fetchHistory(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        let query = HistoryQuery(request, schema: schema)
        var transactions: [PersistentHistoryTransaction] = []
        try read { connection in
            guard hasHistoryTables else { return }
            var current: (number: Int64, timestamp: Date, author: String?, contextName: String?, processID: Int32)?
            var changes: [PersistentHistoryChange] = []
            func flush() {
                guard let open = current else { return }
                let token = PersistentHistoryToken(storeIdentifier: identifier, transactionNumber: open.number)
                transactions.append(PersistentHistoryTransaction(
                    token: token, timestamp: open.timestamp, author: open.author, contextName: open.contextName, processID: open.processID, changes: changes))
                changes = []
            }
            try connection.query(query.sql, query.arguments) { row in
                let number = row.int64(at: 0)
                if current?.number != number {
                    flush()
                    current = (number, Date(timeIntervalSinceReferenceDate: row.double(at: 1)), row.string(at: 2), row.string(at: 3), Int32(clamping: row.int64(at: 4)))
                }
                if let change = try historyChange(from: row, transaction: number) { changes.append(change) }
            }
            flush()
        }
        return try PersistentHistoryFilter(request, storeIdentifier: identifier).result(from: transactions)
    }

    private func historyChange(from row: SQLiteStatement, transaction: Int64) throws -> PersistentHistoryChange? {
        guard let type = PersistentHistoryChange.ChangeType(rawValue: Int(row.int64(at: 6))),
            let id = rows.objectID(entityNumber: row.int64(at: 7), key: row.int64(at: 8))
        else { return nil }
        let updated = type == .update ? Set((row.string(at: 9) ?? "").split(separator: ",").map(String.init)) : nil
        var tombstone: [String: StoreValue]?
        if type == .delete {
            tombstone = [:]
            if let json = row.string(at: 10), let entity = model.entitiesByName[id.entityName] {
                tombstone = HistoryTables.tombstone(from: json, entity: entity)
            }
        }
        return PersistentHistoryChange(
            changeID: row.int64(at: 5), changedObjectID: id, changeType: type, updatedProperties: updated, tombstone: tombstone,
            transactionToken: PersistentHistoryToken(storeIdentifier: identifier, transactionNumber: transaction))
    }

    private func deleteHistory(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        guard !isReadOnly else { throw StoreError(.readOnly, url: url, "the store is read-only; no history was deleted") }
        let condition: String
        let arguments: [SQLValue]
        switch request.bound {
        case .date(let date): (condition, arguments) = ("ZTIMESTAMP < ?", [.real(date.timeIntervalSinceReferenceDate)])
        case .token(let token?): (condition, arguments) = ("Z_PK <= ?", [.integer(token.transactionNumber)])
        case .token(nil): (condition, arguments) = ("1", [])
        }
        let count = try sqlite {
            try pool.write { connection in
                try connection.transaction {
                    guard hasHistoryTables else { return 0 }
                    try connection.run(
                        "DELETE FROM \(HistoryTables.changes) WHERE ZTRANSACTION IN (SELECT Z_PK FROM \(HistoryTables.transactions) WHERE \(condition))", arguments)
                    try connection.run("DELETE FROM \(HistoryTables.transactions) WHERE \(condition)", arguments)
                    return connection.changes
                }
            }
        }
        return request.resultType == .count ? .count(count) : .status(true)
    }
}
