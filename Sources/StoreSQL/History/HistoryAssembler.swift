import Foundation
import StoreCore

/// Builds history transactions from the rows of a SQL store's history query — one row per change
/// or range of changes (or one row for a transaction without changes), ordered by transaction, as
/// the SQLite and PostgreSQL stores select them from `Z_HISTORYTRANSACTION` joined with
/// `Z_HISTORYCHANGE`. A range (``SQLHistoryTables/lastKey``) becomes one change per key, with
/// the IDs up to the row's, in key order.
///
/// For example:
///
/// ```swift
/// var assembler = HistoryAssembler(storeIdentifier: identifier, rows: rows, model: model)
/// // for each row: assembler.add(transaction: …, change: …)
/// let transactions = assembler.finish()
/// ```
package struct HistoryAssembler {
    /// One transaction's columns.
    package struct Transaction {
        package var number: Int64
        package var timestamp: Double
        package var author: String?
        package var contextName: String?
        package var processID: Int64

        package init(number: Int64, timestamp: Double, author: String?, contextName: String?, processID: Int64) {
            self.number = number
            self.timestamp = timestamp
            self.author = author
            self.contextName = contextName
            self.processID = processID
        }
    }

    /// One change's columns, or a range's.
    package struct Change {
        package var id: Int64
        package var type: Int64
        package var entityNumber: Int64
        package var key: Int64
        /// The updated properties, comma-separated.
        package var columns: String?
        /// The tombstone's JSON (``HistoryTombstone``).
        package var tombstone: String?
        /// The last key of a range whose first is ``key`` and whose last change has ID ``id``
        /// (`nil`: one object).
        package var lastKey: Int64?

        package init(id: Int64, type: Int64, entityNumber: Int64, key: Int64, columns: String?, tombstone: String?, lastKey: Int64? = nil) {
            self.id = id
            self.type = type
            self.entityNumber = entityNumber
            self.key = key
            self.columns = columns
            self.tombstone = tombstone
            self.lastKey = lastKey
        }
    }

    let storeIdentifier: String
    let rows: RowReader
    let model: ManagedObjectModel
    private var transactions: [PersistentHistoryTransaction] = []
    private var current: Transaction?
    private var changes: [PersistentHistoryChange] = []

    package init(storeIdentifier: String, rows: RowReader, model: ManagedObjectModel) {
        self.storeIdentifier = storeIdentifier
        self.rows = rows
        self.model = model
    }

    /// Adds one row: the transaction it belongs to and its change, if any.
    package mutating func add(_ transaction: Transaction, change: Change?) {
        if current?.number != transaction.number {
            flush()
            current = transaction
        }
        guard let change else { return }
        guard let last = change.lastKey, last > change.key else {
            if let made = historyChange(change, transaction: transaction.number) { changes.append(made) }
            return
        }
        // A range: key k has ID id - (last - k).
        var single = change
        single.lastKey = nil
        for key in change.key...last {
            single.key = key
            single.id = change.id - (last - key)
            if let made = historyChange(single, transaction: transaction.number) { changes.append(made) }
        }
    }

    /// The transactions, in the order of the rows.
    package mutating func finish() -> [PersistentHistoryTransaction] {
        flush()
        return transactions
    }

    private mutating func flush() {
        guard let open = current else { return }
        transactions.append(PersistentHistoryTransaction(
            token: PersistentHistoryToken(storeIdentifier: storeIdentifier, transactionNumber: open.number),
            timestamp: Date(timeIntervalSinceReferenceDate: open.timestamp), author: open.author, contextName: open.contextName,
            processID: Int32(clamping: open.processID), changes: changes))
        changes = []
        current = nil
    }

    private func historyChange(_ change: Change, transaction: Int64) -> PersistentHistoryChange? {
        guard let type = PersistentHistoryChange.ChangeType(rawValue: Int(change.type)),
            let id = rows.objectID(entityNumber: change.entityNumber, key: change.key)
        else { return nil }
        let updated = type == .update ? Set((change.columns ?? "").split(separator: ",").map(String.init)) : nil
        var tombstone: [String: StoreValue]?
        if type == .delete {
            tombstone = [:]
            if let json = change.tombstone, let entity = model.entitiesByName[id.entityName] {
                tombstone = HistoryTombstone.decode(json, entity: entity)
            }
        }
        return PersistentHistoryChange(
            changeID: change.id, changedObjectID: id, changeType: type, updatedProperties: updated, tombstone: tombstone,
            transactionToken: PersistentHistoryToken(storeIdentifier: storeIdentifier, transactionNumber: transaction))
    }
}
