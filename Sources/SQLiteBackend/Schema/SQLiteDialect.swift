import Foundation
import StoreCore
import StoreSQL
internal import CSQLite

/// SQLite's dialect of the shared SQL compiler: the `stowage_…` functions and `STOWAGE_…`
/// collations ``SQLiteFunctions`` registers on every connection, values stored as
/// ``SQLiteValueCoder`` writes them, and external-storage markers.
///
/// For example:
///
/// ```swift
/// let schema = SQLSchema(model: model)    // SQLite's dialect
/// ```
struct SQLiteDialect: SQLDialect {
    var foldFunction: String { SQLiteFunctions.foldName }
    var likeFunction: String { SQLiteFunctions.likeName }
    var matchesFunction: String { SQLiteFunctions.matchesName }
    var lowercaseFunction: String { SQLiteFunctions.lowercaseName }
    var uppercaseFunction: String { SQLiteFunctions.uppercaseName }
    var castFunction: String { SQLiteFunctions.castName }
    var selectorFunction: String { SQLiteFunctions.functionName }
    var caseInsensitiveCollation: String { SQLiteFunctions.caseInsensitiveCollation }
    var localizedCollation: String { SQLiteFunctions.localizedCollation }
    var localizedCaseInsensitiveCollation: String { SQLiteFunctions.localizedCaseInsensitiveCollation }

    func valueTable(_ values: [SQLValue]) -> (value: SQLValue, table: (_ parameter: String) -> String)? {
        guard let json = QueryTranslator.jsonArray(values) else { return nil }
        return (.text(json), { "json_each(\($0))" })
    }
    func encode(_ value: StoreValue) -> SQLValue { SQLiteValueCoder.encode(value) }
    func decode(_ value: SQLValue, as type: AttributeType) -> StoreValue { SQLiteValueCoder.decode(value, as: type) }
    func inlineBinary(_ data: Data) -> SQLValue { .blob(Data([ExternalBinaryStorage.inlineMarker]) + data) }

    /// A virtual table with a min and max column per indexed property, kept in step with the
    /// entity's table by triggers, as Core Data makes it.
    func rTreeStatements(_ index: RTreeIndex) -> [String]? {
        let table = index.entity
        let name = quoted(index.tableName)
        let bounds = index.columns.flatMap { ["\($0)_MIN", "\($0)_MAX"] }
        let values = index.columns.flatMap { ["NEW.\($0)", "NEW.\($0)"] }
        let entityFilter = table.sharesTable ? " AND NEW.Z_ENT IN (\(table.entityNumbers.map(String.init).joined(separator: ", ")))" : ""
        let present = index.columns.map { "NEW.\($0) IS NOT NULL" }.joined(separator: " AND ") + entityFilter
        let insert = "INSERT OR REPLACE INTO \(name) (Z_PK, \(bounds.joined(separator: ", "))) SELECT NEW.Z_PK, \(values.joined(separator: ", ")) WHERE \(present)"
        let trigger = { (suffix: String) in quoted("Z_RT_\(index.tableName)_\(suffix)") }
        return [
            "CREATE VIRTUAL TABLE \(name) USING rtree (Z_PK, \(bounds.joined(separator: ", ")))",
            "CREATE TRIGGER \(trigger("INSERT")) AFTER INSERT ON \(table.table) FOR EACH ROW BEGIN \(insert); END",
            "CREATE TRIGGER \(trigger("UPDATE")) AFTER UPDATE OF \(index.columns.joined(separator: ", ")) ON \(table.table) FOR EACH ROW BEGIN DELETE FROM \(name) WHERE Z_PK = OLD.Z_PK; \(insert); END",
            "CREATE TRIGGER \(trigger("DELETE")) AFTER DELETE ON \(table.table) FOR EACH ROW BEGIN DELETE FROM \(name) WHERE Z_PK = OLD.Z_PK; END",
        ]
    }

    private func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

extension SQLSchema {
    /// The layout of `model` in a SQLite store (see ``SQLSchema/init(model:entityNumbers:dialect:)``).
    convenience init(model: ManagedObjectModel, entityNumbers: [String: Int64]? = nil) {
        self.init(model: model, entityNumbers: entityNumbers, dialect: SQLiteDialect())
    }
}

extension SQLiteStatement: SQLRow {
    package func storeValue(at index: Int, as type: AttributeType) -> StoreValue {
        SQLiteValueCoder.read(self, at: index, as: type)
    }

    package func readAttributes(_ columns: UnsafeBufferPointer<AttributeColumn>, into values: inout StoreValues) {
        // Each column's fields are read through the buffer, not copied out (see `slotKind`).
        // The column is taken once as SQLite's value: each `sqlite3_column_*` call looks the
        // column up again and checks the statement's error state, the cost of the read itself.
        // Common kinds go straight into their slots, without a `StoreValue` between, by the rule
        // of `SQLiteValueCoder.read(_:at:kind:)`.
        for column in columns.indices {
            let position = columns[column].position, index = columns[column].propertyIndex
            let cell = SQLiteCell(statement: self, position: position)
            let storageClass = cell.storageClass
            if storageClass == SQLITE_NULL { continue }
            switch columns[column].slotKind {
            case .integer where storageClass == SQLITE_INTEGER: values.initialize(integer: cell.int64, at: index)
            case .boolean: values.initialize(boolean: cell.int64 != 0, at: index)
            case .double: values.initialize(double: cell.double, at: index)
            case .date: values.initialize(date: Date(timeIntervalSinceReferenceDate: cell.double), at: index)
            case .string:
                if let text = cell.text { values.initialize(string: text, at: index) } else { readDecoding(columns[column], into: &values) }
            default: readDecoding(columns[column], into: &values)
            }
        }
    }

    package func keys() -> (primaryKey: Int64, entityNumber: Int64, version: Int64) {
        (SQLiteCell(statement: self, position: 0).int64, SQLiteCell(statement: self, position: 1).int64,
         SQLiteCell(statement: self, position: 2).int64)
    }

    /// Reads a column of a less common kind, or storage class, through ``SQLValue``.
    private func readDecoding(_ column: AttributeColumn, into values: inout StoreValues) {
        values.initialize(SQLiteValueCoder.decode(value(at: column.position), as: column.type), at: column.propertyIndex)
    }
}

/// SQLite's dialect, for code outside this module that checks the shared store logic's SQL (the
/// recording driver of `StoreSQLTests`).
package enum SQLiteDialects {
    package static var dialect: any SQLDialect { SQLiteDialect() }
}
