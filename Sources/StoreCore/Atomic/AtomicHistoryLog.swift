import Foundation

/// An atomic store's persistent history, kept in its file: the transactions in order, written
/// into the metadata under ``metadataKey`` as a binary property list (so every format — XML,
/// binary, JSON or yours — keeps it without knowing about it).
struct AtomicHistoryLog: Sendable {
    static let metadataKey = "StowagePersistentHistory"

    private(set) var transactions: [PersistentHistoryTransaction] = []
    private(set) var lastTransactionNumber: Int64 = 0
    private(set) var lastChangeID: Int64 = 0
    /// The newest transaction a deletion removed (0: none): a token before it has expired.
    private(set) var purgedThrough: Int64 = 0
    let storeIdentifier: String

    init(storeIdentifier: String) {
        self.storeIdentifier = storeIdentifier
    }

    var currentToken: PersistentHistoryToken? {
        lastTransactionNumber > 0 ? PersistentHistoryToken(storeIdentifier: storeIdentifier, transactionNumber: lastTransactionNumber) : nil
    }

    /// Appends a transaction for `record` (nothing for a record without changes).
    mutating func append(_ record: HistoryRecord) {
        guard !record.changes.isEmpty else { return }
        lastTransactionNumber += 1
        let token = PersistentHistoryToken(storeIdentifier: storeIdentifier, transactionNumber: lastTransactionNumber)
        let changes = record.changes.map { change in
            lastChangeID += 1
            return PersistentHistoryChange(
                changeID: lastChangeID, changedObjectID: change.objectID, changeType: change.type, updatedProperties: change.updated,
                tombstone: change.tombstone, transactionToken: token)
        }
        transactions.append(PersistentHistoryTransaction(
            token: token, timestamp: record.timestamp, author: record.author, contextName: record.contextName,
            processID: record.processID, changes: changes))
    }

    /// Removes the transactions the delete request selects; returns how many.
    mutating func delete(_ filter: PersistentHistoryFilter) -> Int {
        let before = transactions.count
        transactions.removeAll { transaction in
            guard filter.isWithinBound(transaction) else { return false }
            purgedThrough = max(purgedThrough, transaction.transactionNumber)
            return true
        }
        return before - transactions.count
    }
}

// MARK: Property list

extension AtomicHistoryLog {
    var propertyList: PropertyListValue {
        .dictionary([
            "lastTransactionNumber": .integer(lastTransactionNumber),
            "lastChangeID": .integer(lastChangeID),
            "purgedThrough": .integer(purgedThrough),
            "transactions": .array(transactions.map(Self.propertyList(of:))),
        ])
    }

    private static func propertyList(of transaction: PersistentHistoryTransaction) -> PropertyListValue {
        var entry: [String: PropertyListValue] = [
            "number": .integer(transaction.transactionNumber), "timestamp": .date(transaction.timestamp),
            "processID": .integer(Int64(transaction.processID)),
            "changes": .array((transaction.changes ?? []).map(propertyList(of:))),
        ]
        entry["author"] = transaction.author.map(PropertyListValue.string)
        entry["contextName"] = transaction.contextName.map(PropertyListValue.string)
        return .dictionary(entry)
    }

    private static func propertyList(of change: PersistentHistoryChange) -> PropertyListValue {
        var entry: [String: PropertyListValue] = [
            "changeID": .integer(change.changeID), "entity": .string(change.changedObjectID.entityName),
            "primaryKey": .integer(change.changedObjectID.primaryKey ?? 0), "changeType": .integer(Int64(change.changeType.rawValue)),
        ]
        entry["updatedProperties"] = change.updatedProperties.map { .array($0.sorted().map(PropertyListValue.string)) }
        entry["tombstone"] = change.tombstone.map { .dictionary($0.compactMapValues(PropertyListValue.init)) }
        return .dictionary(entry)
    }

    /// The history as the metadata value holds it.
    var encoded: Data { BinaryPropertyListWriter().write(propertyList) }

    /// Reads the history a file's metadata holds; throws `StoreError.Code.corrupt` naming what is wrong.
    init(stored: StoreValue?, storeIdentifier: String, model: ManagedObjectModel, url: URL?) throws {
        self.init(storeIdentifier: storeIdentifier)
        guard let stored else { return }
        func corrupt(_ message: String) -> StoreError { StoreError(.corrupt, url: url, "the store's persistent history is damaged: \(message)") }
        guard case .data(let data) = stored else { throw corrupt("it is not a binary property list") }
        let propertyList: PropertyListValue
        do { propertyList = try BinaryPropertyListReader().read(data) } catch { throw corrupt("\(error)") }
        guard let last = propertyList["lastTransactionNumber"]?.integerValue, let lastChange = propertyList["lastChangeID"]?.integerValue,
            let entries = propertyList["transactions"]?.arrayValue
        else { throw corrupt("missing counters or transactions") }
        lastTransactionNumber = last
        lastChangeID = lastChange
        for entry in entries {
            guard let number = entry["number"]?.integerValue, let timestamp = entry["timestamp"]?.dateValue,
                let changes = entry["changes"]?.arrayValue
            else { throw corrupt("a transaction lacks its number, timestamp or changes") }
            let token = PersistentHistoryToken(storeIdentifier: storeIdentifier, transactionNumber: number)
            let decoded = try changes.map { change -> PersistentHistoryChange in
                guard let id = change["changeID"]?.integerValue, let entity = change["entity"]?.stringValue,
                    let key = change["primaryKey"]?.integerValue, key > 0,
                    let rawType = change["changeType"]?.integerValue, let type = PersistentHistoryChange.ChangeType(rawValue: Int(rawType))
                else { throw corrupt("a change of transaction \(number) is incomplete") }
                guard let entityDescription = model.entitiesByName[entity] else { throw corrupt("a change names the unknown entity \(entity)") }
                let updated = change["updatedProperties"]?.arrayValue.map { Set($0.compactMap(\.stringValue)) }
                let tombstone = change["tombstone"]?.dictionaryValue.map { values in
                    values.reduce(into: [String: StoreValue]()) { result, item in
                        guard let attribute = entityDescription.attributesByName[item.key] else { return }
                        result[item.key] = attribute.attributeType.value(fromPropertyList: item.value)
                    }
                }
                return PersistentHistoryChange(
                    changeID: id, changedObjectID: ManagedObjectID(entityName: entity, storeIdentifier: storeIdentifier, primaryKey: key),
                    changeType: type, updatedProperties: updated, tombstone: tombstone, transactionToken: token)
            }
            transactions.append(PersistentHistoryTransaction(
                token: token, timestamp: timestamp, author: entry["author"]?.stringValue, contextName: entry["contextName"]?.stringValue,
                processID: Int32(clamping: entry["processID"]?.integerValue ?? 0), changes: decoded))
        }
        // Files written before deletions were recorded: numbers are consecutive, so whatever lies
        // below the oldest transaction kept (or up to the last number, when none is) was deleted.
        purgedThrough = propertyList["purgedThrough"]?.integerValue ?? ((transactions.first?.transactionNumber).map { $0 - 1 } ?? last)
    }
}

extension AttributeType {
    /// A value written by `PropertyListValue.init?(StoreValue)` read back as this type; `.null`
    /// when it does not convert.
    func value(fromPropertyList value: PropertyListValue) -> StoreValue {
        switch (self, value) {
        case (.uuid, .string(let text)): return UUID(uuidString: text).map(StoreValue.uuid) ?? .null
        case (.uri, .string(let text)): return URL(string: text).map(StoreValue.uri) ?? .null
        case (.decimal, .string(let text)): return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map(StoreValue.decimal) ?? .null
        default: return value.storeValue.flatMap(coerce) ?? .null
        }
    }
}
