import Foundation
import StoreCore
import StoreSQL

/// The tables persistent history lives in, inside the store and written in the same SQLite
/// transaction as the changes they describe (docs/sqlite-layout.md, "Persistent history").
///
/// `AUTOINCREMENT` keeps transaction numbers (tokens) and change IDs growing even after history
/// is deleted.
enum HistoryTables {
    static let transactions = "Z_HISTORYTRANSACTION"
    static let changes = "Z_HISTORYCHANGE"

    static let ddl = [
        """
        CREATE TABLE IF NOT EXISTS \(transactions) (Z_PK INTEGER PRIMARY KEY AUTOINCREMENT, ZTIMESTAMP TIMESTAMP NOT NULL, \
        ZAUTHOR VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID INTEGER NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS Z_HISTORYTRANSACTION_TIMESTAMP ON \(transactions) (ZTIMESTAMP)",
        """
        CREATE TABLE IF NOT EXISTS \(changes) (Z_PK INTEGER PRIMARY KEY AUTOINCREMENT, ZTRANSACTION INTEGER NOT NULL, \
        ZCHANGETYPE INTEGER NOT NULL, ZENTITY INTEGER NOT NULL, ZENTITYPK INTEGER NOT NULL, ZCOLUMNS VARCHAR, ZTOMBSTONE VARCHAR)
        """,
        "CREATE INDEX IF NOT EXISTS Z_HISTORYCHANGE_TRANSACTION ON \(changes) (ZTRANSACTION)",
        "CREATE INDEX IF NOT EXISTS Z_HISTORYCHANGE_OBJECT ON \(changes) (ZENTITY, ZENTITYPK, ZTRANSACTION)",
    ]

    static func create(on connection: SQLiteConnection) throws {
        for statement in ddl { try connection.execute(statement) }
    }

    static func exist(on connection: SQLiteConnection) throws -> Bool {
        try connection.scalar("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(changes)]) != nil
    }

    /// The tombstone of a row of entity `name` (its table aliased `alias`): a JSON object of the
    /// preserved attributes (blobs as hex, decimals as text), or `nil` when the entity preserves none.
    static func tombstoneSQL(for name: String, schema: SQLSchema, model: ManagedObjectModel, alias: String) -> String? {
        guard let table = schema.tables[name] else { return nil }
        let columns = HistoryRecord.preservedAttributes(of: name, model: model).compactMap { attribute -> String? in
            guard let column = table.column(for: attribute.name), case .attribute(let type, _) = column.kind else { return nil }
            let value = switch type {
            case .binaryData, .uuid, .transformable, .objectID: "hex(\(alias).\(column.name))"
            case .decimal: "CAST(\(alias).\(column.name) AS TEXT)"
            default: "\(alias).\(column.name)"
            }
            return "'\(attribute.name)', \(value)"
        }
        return columns.isEmpty ? nil : "json_object(\(columns.joined(separator: ", ")))"
    }

    /// A tombstone written by ``tombstoneSQL(for:schema:model:alias:)`` read back by attribute type.
    static func tombstone(from json: String, entity: EntityDescription) -> [String: StoreValue] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return [:] }
        var values: [String: StoreValue] = [:]
        for (key, raw) in object {
            guard let attribute = entity.attributesByName[key] else { continue }
            let sql: SQLValue
            switch (attribute.attributeType, raw) {
            case (.binaryData, let hex as String), (.uuid, let hex as String), (.transformable, let hex as String):
                sql = Data(hexString: hex).map(SQLValue.blob) ?? .null
            case (.double, let number as NSNumber), (.float, let number as NSNumber), (.date, let number as NSNumber):
                sql = .real(number.doubleValue)
            case (_, let number as NSNumber):
                sql = .integer(number.int64Value)
            case (_, let text as String):
                sql = .text(text)
            default:
                sql = .null
            }
            values[key] = SQLiteValueCoder.decode(sql, as: attribute.attributeType)
        }
        return values
    }
}

extension Data {
    /// Bytes from SQLite's `hex()` text (upper-case pairs); `nil` for anything else.
    init?(hexString: String) {
        let digits = Array(hexString.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(digits.count / 2)
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: c - 48
            case 65...70: c - 55
            case 97...102: c - 87
            default: nil
            }
        }
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.init(bytes)
    }
}
