import Foundation
import StoreCore
import StoreSQL

/// What SQLite's store keeps outside the database — binary values of attributes that allow
/// external storage, above the threshold (``ExternalBinaryStorage``) — in saves and batch requests.
extension SQLiteStore {
    /// Writes large values of external-storage attributes to files, and notes the files of the
    /// values a save replaces or deletes (removed after the commit, or once a backup copying them ends).
    package func prepare(_ writer: inout SQLChangeWriter<SQLiteStore>, on connection: SQLiteConnection, files: SQLWriteFiles) {
        writer.encodeExternal = { try self.encodeExternal($0, files: files) }
        guard let storage = externalStorage else { return }
        files.removeObsolete = ExternalFileRemovals.remove   // put off while a backup copies them
        writer.willReplaceExternal = { column, key, table in
            if case .blob(let stored)? = try connection.scalar("SELECT \(column.name) FROM \(table.table) WHERE Z_PK = ?", [.integer(key)]),
                let file = storage.file(for: stored) {
                files.obsolete.append(file)
            }
        }
    }

    /// Notes the files of external-storage attributes of the rows a batch delete removes.
    package func prepare(_ deleter: inout SQLBatchDeleter<SQLiteStore>, on connection: SQLiteConnection, files: SQLWriteFiles) {
        guard let storage = externalStorage else { return }
        files.removeObsolete = ExternalFileRemovals.remove
        deleter.willDeleteRows = { root, condition in
            var seen: Set<String> = []
            for name in root.entityNumbers.compactMap({ self.schema.entityNames[$0] }) {
                guard let table = self.schema.tables[name] else { continue }
                for column in table.columns where seen.insert(column.name).inserted {
                    guard case .attribute(_, true) = column.kind else { continue }
                    try connection.query("SELECT \(column.name) FROM \(root.table) WHERE \(condition) AND \(column.name) IS NOT NULL") { row in
                        if let data = row.data(at: 0), let file = storage.file(for: data) { files.obsolete.append(file) }
                    }
                }
            }
        }
    }

    /// Inserts through one prepared statement (upserts with `ON CONFLICT … DO UPDATE`): ``SQLiteBatchInsert``.
    package func insert(
        _ insert: StoreBatchRequest.Insert, history: inout SQLHistoryWriter<SQLiteStore>?, wantsObjectIDs: Bool, on connection: SQLiteConnection,
        files: SQLWriteFiles
    ) throws -> StoreBatchResult {
        var writer = SQLiteBatchInsert(store: self, connection: connection, history: history, files: files, wantsObjectIDs: wantsObjectIDs)
        defer { history = writer.history }
        return try writer.write(insert)
    }

    /// A value as its column holds it (``encodeExternal(_:files:)`` for external-storage attributes).
    func encode(_ value: StoreValue, for column: Column, files: SQLWriteFiles) throws -> SQLValue {
        if case .attribute(_, true) = column.kind, case .data(let data) = value { return try encodeExternal(data, files: files) }
        return SQLiteValueCoder.encode(value)
    }

    /// Binary data of an attribute that allows external storage, as its column holds it: a marker
    /// byte, then the bytes, or — above the threshold — the name of the file they were written to
    /// (noted in `files`, so a failed write removes it).
    func encodeExternal(_ data: Data, files: SQLWriteFiles) throws -> SQLValue {
        guard let storage = externalStorage else { return .blob(Data([ExternalBinaryStorage.inlineMarker]) + data) }
        return .blob(try storage.encode(data, written: &files.written))
    }
}
