import Foundation
import SQLiteBackend
import StoreCore
import StoreSQL
#if Postgres
import PostgresBackend
#endif

/// A SQL driver that runs nothing: it records every statement the shared store logic sends, with
/// its bound values, and answers from a script — so each dialect's SQL and the order of
/// statements are checked without a database.
final class RecordingConnection: SQLConnection {
    struct Statement: Equatable, CustomStringConvertible {
        let sql: String
        let values: [SQLValue]
        var description: String { values.isEmpty ? sql : "\(sql) \(values)" }
    }

    private(set) var statements: [Statement] = []
    /// The rows a query answers with (default: none).
    var rows: (String) -> [[SQLValue]] = { _ in [] }
    /// How many rows a statement changes (default: 1).
    var changes: (String) -> Int = { _ in 1 }

    func record(_ sql: String, _ values: [SQLValue] = []) { statements.append(Statement(sql: sql, values: values)) }

    func collect<T>(_ sql: String, _ values: [SQLValue], _ transform: @escaping @Sendable (RecordedRow) throws -> T?) throws -> [T] {
        record(sql, values)
        return try rows(sql).compactMap { try transform(RecordedRow(values: $0)) }
    }

    func run(_ sql: String, _ values: [SQLValue]) throws -> Int {
        record(sql, values)
        return changes(sql)
    }

    func scalar(_ sql: String, _ values: [SQLValue]) throws -> SQLValue? {
        record(sql, values)
        return rows(sql).first?.first
    }
}

struct RecordedRow: SQLRow {
    let values: [SQLValue]

    func isNull(at index: Int) -> Bool { value(at: index) == .null }
    func int64(at index: Int) -> Int64 { if case .integer(let value) = value(at: index) { value } else { 0 } }
    func double(at index: Int) -> Double { if case .real(let value) = value(at: index) { value } else { 0 } }
    func value(at index: Int) -> SQLValue { index < values.count ? values[index] : .null }
    func storeValue(at index: Int, as type: AttributeType) -> StoreValue { SQLValueCoder.decode(value(at: index), as: type) }
    func readAttributes(_ columns: UnsafeBufferPointer<AttributeColumn>, into values: inout StoreValues) {
        for column in columns { values.initialize(storeValue(at: column.position, as: column.type), at: column.propertyIndex) }
    }
}

/// What the recording driver's `insert` throws when told to break a uniqueness constraint.
struct RecordedUniqueViolation: Error {}

/// A SQL store on the recording driver: the shared logic of ``StoreSQL/SQLStore`` with a dialect
/// of choice; transactions are recorded as `BEGIN`, `COMMIT` and `ROLLBACK`.
final class RecordingStore: SQLStore, @unchecked Sendable {
    // @unchecked: used by one test at a time, on its own thread.
    let identifier = "RECORDING-STORE"
    let type = PersistentStoreType(rawValue: "Recording")
    let url: URL? = nil
    let configurationName: String? = nil
    let isReadOnly = false
    var isHistoryTrackingEnabled = false
    let hasHistoryTables = true
    let hasHistoryPurgeTable = true
    let hasHistoryChangeRanges = true
    let lastHistoryTransactionQuery = "SELECT MAX(Z_PK) FROM Z_HISTORYTRANSACTION"
    let model: ManagedObjectModel
    let schema: SQLSchema
    let rows: RowReader
    let compiler: SQLCompiler
    let prefetched = PrefetchCache()
    let isReadingPinnedGeneration = false
    let externalBinaryReader: (@Sendable (Data) throws -> Data)? = nil
    private(set) var metadata = StoreMetadata(storeType: "Recording")
    let connection = RecordingConnection()
    /// Whether the driver's inserts break a uniqueness constraint.
    var insertsBreakUniqueness = false

    init(model: ManagedObjectModel, dialect: any SQLDialect) {
        self.model = model
        schema = SQLSchema(model: model, dialect: dialect)
        rows = RowReader(schema: schema, model: model, storeIdentifier: identifier)
        compiler = SQLCompiler(schema: schema, model: model)
    }

    /// The statements recorded so far, as SQL text.
    var sql: [String] { connection.statements.map(\.sql) }

    func objectID(_ entity: String, _ key: Int64) throws -> ManagedObjectID {
        guard let id = rows.objectID(entityName: entity, key: key) else { throw StoreError(.unknownEntity, "no entity \(entity)") }
        return id
    }

    func read<T>(_ body: (RecordingConnection) throws -> T) throws -> T { try body(connection) }
    func readConsistently<T>(_ body: (RecordingConnection) throws -> T) throws -> T { try body(connection) }
    func reading<T>(pinnedTo pin: Int, _ body: () throws -> T) throws -> T { try body() }

    func write<T>(_ body: (RecordingConnection) throws -> T) throws -> T {
        connection.record("BEGIN")
        do {
            let result = try body(connection)
            connection.record("COMMIT")
            return result
        } catch {
            connection.record("ROLLBACK")
            throw error
        }
    }

    func isUniqueViolation(_ error: any Error) -> Bool { error is RecordedUniqueViolation }

    /// Change IDs as if 100 were given out; each range taken is recorded.
    func lastHistoryChangeID(on connection: RecordingConnection) throws -> Int64 { 100 }
    func historyChangeIDsTaken(through id: Int64, on connection: RecordingConnection) throws {
        connection.record("HISTORY CHANGE IDS THROUGH \(id)")
    }

    func insert(into table: EntityTable, count: Int, on connection: RecordingConnection, row: (Int, inout [SQLValue]) throws -> Void) throws {
        var values: [SQLValue] = []
        for index in 0..<count { try row(index, &values) }
        connection.record("INSERT INTO \(table.table)", values)
        if insertsBreakUniqueness { throw RecordedUniqueViolation() }
    }

    func insert(
        _ insert: StoreBatchRequest.Insert, history: inout SQLHistoryWriter<RecordingStore>?, wantsObjectIDs: Bool, on connection: RecordingConnection,
        files: SQLWriteFiles
    ) throws -> StoreBatchResult {
        throw StoreError(.unsupportedRequest, "the recording driver has no batch insert")
    }

    func lockHistory(on connection: RecordingConnection) throws { connection.record("LOCK HISTORY") }
    func writeMetadata(_ metadata: StoreMetadata, on connection: RecordingConnection) throws { connection.record("WRITE METADATA") }
    func didWriteMetadata(_ metadata: StoreMetadata) { self.metadata = metadata }
    func unload() throws {}
}

/// The dialects the shared logic is checked in.
enum Dialect: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    #if Postgres
    case postgres
    #endif

    var sql: any SQLDialect {
        switch self {
        case .sqlite: SQLiteDialects.dialect
        #if Postgres
        case .postgres: PostgresDialects.dialect
        #endif
        }
    }

    var description: String { rawValue }

    /// Parameter `n` as this dialect writes it.
    func p(_ number: Int) -> String { sql.parameter(number, declaredType: nil) }
}
