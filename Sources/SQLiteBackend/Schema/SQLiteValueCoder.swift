import Foundation
import StoreCore
import StoreSQL
internal import CSQLite

/// Converts attribute values to SQLite storage classes and back, as Core Data stores them:
/// integers and booleans as INTEGER, doubles and floats as REAL, dates as REAL seconds since
/// 2001-01-01, decimals as their digits (TEXT, which the DECIMAL column's numeric affinity
/// turns into a number — so decimals a double cannot hold exactly are bound as a BLOB of their
/// digits, which affinity leaves alone, and queries compare the column through
/// `CAST(… AS REAL)`), strings and URIs as TEXT, binary data and
/// transformed values as BLOB, UUIDs as their 16 bytes, to-one references as the destination's
/// `Z_PK`.
///
/// For example:
///
/// ```swift
/// SQLiteValueCoder.encode(.date(Date(timeIntervalSinceReferenceDate: 60)))   // .real(60)
/// SQLiteValueCoder.decode(.integer(1), as: .boolean)                         // .boolean(true)
/// ```
enum SQLiteValueCoder {
    /// Whether SQLite's numeric affinity, which keeps 15 significant digits, stores `number`
    /// without changing it.
    static func holdsExactlyAsDouble(_ number: Decimal) -> Bool {
        let digits = number.description.filter(\.isNumber).drop { $0 == "0" }.reversed().drop { $0 == "0" }
        return digits.count <= 15 && abs(number.exponent) < 300
    }

    static func encode(_ value: StoreValue) -> SQLValue {
        SQLValueCoder.encode(value) { number in
            holdsExactlyAsDouble(number) ? .text(number.description) : .blob(Data(number.description.utf8))
        }
    }

    static func decode(_ value: SQLValue, as type: AttributeType) -> StoreValue {
        SQLValueCoder.decode(value, as: type)
    }

    /// Reads column `index` of the current row as `type`, without going through ``SQLValue``
    /// for the common storage classes.
    static func read(_ statement: SQLiteStatement, at index: Int, as type: AttributeType) -> StoreValue {
        read(statement, at: index, kind: StoreValueLayout.SlotKind(type)) ?? decode(statement.value(at: index), as: type)
    }

    /// Reads column `index` of the current row when it is NULL, or of a common type (by its slot
    /// `kind`) in its usual storage class, taking the column once; `nil` for anything else.
    /// The rule (integers from INTEGER alone; Booleans, doubles, dates and text converted as
    /// SQLite converts them) is the one `SQLiteStatement.readAttributes` follows for a row.
    static func read(_ statement: SQLiteStatement, at index: Int, kind: StoreValueLayout.SlotKind) -> StoreValue? {
        let cell = SQLiteCell(statement: statement, position: index)
        let storageClass = cell.storageClass
        if storageClass == SQLITE_NULL { return .null }
        switch kind {
        case .integer: return storageClass == SQLITE_INTEGER ? .integer(cell.int64) : nil
        case .boolean: return .boolean(cell.int64 != 0)
        case .double: return .double(cell.double)
        case .date: return .date(Date(timeIntervalSinceReferenceDate: cell.double))
        case .string: return cell.text.map { .string($0) }
        case .float, .uuid, .decimal, .data, .uri, .objectID, .any, .empty: return nil
        }
    }
}
