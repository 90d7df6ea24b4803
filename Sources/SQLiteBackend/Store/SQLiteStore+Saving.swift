import Foundation
import StoreCore
import StoreSQL

extension SQLiteStore {
    /// Takes keys from the `Z_PRIMARYKEY` rows in a write transaction of its own; throws `readOnly` for a
    /// read-only store.
    public func newObjectIDs(forEntityNames entityNames: [String]) throws -> [ManagedObjectID] {
        guard !isReadOnly else { throw StoreError(.readOnly, url: url, "the store is read-only") }
        return try write { try allocateObjectIDs(forEntityNames: entityNames, on: $0) }
    }

    /// Writes the change set in one SQLite transaction (with its history rows when history tracking is on);
    /// `Z_OPT` conflicts throw `MergeConflictError`, a broken unique constraint `uniquenessConstraint`.
    public func save(_ changes: StoreChangeSet) throws {
        _ = try save(newObjectsOf: []) { _ in changes }
    }

    /// Allocates the new objects' keys and writes the changes (``StoreSQL/SQLChangeWriter``) in one
    /// write transaction: a save that fails spends no keys.
    public func save(
        newObjectsOf entityNames: [String], _ makeChanges: ([ManagedObjectID]) throws -> StoreChangeSet
    ) throws -> StoreChangeSet {
        guard !isReadOnly else { throw StoreError(.readOnly, url: url, "the store is read-only; nothing was saved") }
        let files = FileChanges()
        let saved: StoreChangeSet
        do {
            saved = try write { connection in
                let changes = try makeChanges(allocateObjectIDs(forEntityNames: entityNames, on: connection))
                var writer = SQLChangeWriter(store: self, connection: connection)
                if isHistoryTrackingEnabled {
                    writer.history = try SQLHistoryWriter(store: self, connection: connection, author: changes.transactionAuthor, contextName: changes.contextName)
                }
                writer.encodeExternal = { try self.encodeExternal($0, files: files) }
                writer.willReplaceExternal = { column, key, table in try self.noteReplacedFile(of: column, key: key, table: table, on: connection, files: files) }
                try writer.write(changes)
                return changes
            }
        } catch {
            for file in files.written { try? FileManager.default.removeItem(at: file) }
            if let violation = error as? UniquenessViolation { throw try sqlite { try uniquenessError(violation) } }
            throw error
        }
        for file in files.obsolete { try? FileManager.default.removeItem(at: file) }
        return saved
    }

    /// A value as its column holds it (``encodeExternal(_:files:)`` for external-storage attributes).
    func encode(_ value: StoreValue, for column: Column, files: FileChanges) throws -> SQLValue {
        if case .attribute(_, true) = column.kind, case .data(let data) = value { return try encodeExternal(data, files: files) }
        return SQLiteValueCoder.encode(value)
    }

    /// Binary data of an attribute that allows external storage, as its column holds it: large values
    /// go to files (recorded in `files`, so a failed transaction removes them).
    func encodeExternal(_ data: Data, files: FileChanges) throws -> SQLValue {
        guard let storage = externalStorage else { return .blob(Data([ExternalBinaryStorage.inlineMarker]) + data) }
        return .blob(try storage.encode(data, written: &files.written))
    }

    /// Notes the file of the value a save replaces or deletes, removed once the save commits.
    private func noteReplacedFile(of column: Column, key: Int64, table: EntityTable, on connection: SQLiteConnection, files: FileChanges) throws {
        guard let storage = externalStorage else { return }
        if case .blob(let stored)? = try connection.scalar("SELECT \(column.name) FROM \(table.table) WHERE Z_PK = ?", [.integer(key)]),
            let file = storage.file(for: stored) {
            files.obsolete.append(file)
        }
    }
}

/// External files a save wrote (removed if it fails) and made obsolete (removed once it commits).
final class FileChanges {
    var written: [URL] = []
    var obsolete: [URL] = []
}
