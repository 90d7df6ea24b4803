#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import StoreCore
import StoreSQL

/// Records a context's save in persistent history as the shared change writer writes it: a
/// deleted object's tombstone is read before its row goes; the transaction row and every change
/// row are written at the end (``HistoryTables/write(_:schema:on:lockName:)``, many per statement).
struct HistoryRecorder: SQLHistoryRecording {
    let store: PostgresStore
    let connection: ServerConnection
    private var record: HistoryRecord

    init(store: PostgresStore, connection: ServerConnection, author: String?, contextName: String?) {
        self.store = store
        self.connection = connection
        record = HistoryRecord(author: author, contextName: contextName)
    }

    mutating func recordDeletion(of snapshot: StoreSnapshot, table: EntityTable, key: Int64) throws {
        guard let current = try store.snapshot(in: connection, key: key, entity: snapshot.objectID.entityName),
            current.version == snapshot.version
        else { return }
        record.changes.append((snapshot.objectID, .delete, nil, HistoryRecord.tombstone(of: current, model: store.model)))
    }

    mutating func recordInsertion(of snapshot: StoreSnapshot, table: EntityTable, key: Int64) throws {
        record.changes.append((snapshot.objectID, .insert, nil, nil))
    }

    mutating func recordUpdate(of snapshot: StoreSnapshot, table: EntityTable, key: Int64) throws {
        record.changes.append((snapshot.objectID, .update, Set(snapshot.heldProperties.map { snapshot.entity.properties[$0].name }), nil))
    }

    func finish() throws {
        guard !record.changes.isEmpty else { return }
        try HistoryTables.write(record, schema: store.schema, on: connection, lockName: store.schemaName)
    }
}
#endif
