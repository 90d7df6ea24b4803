import Foundation
import StoreCore
import StoreSQL

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
        switch value {
        case .null: .null
        case .integer(let number): .integer(number)
        case .double(let number): number.isNaN ? .null : .real(number)
        case .float(let number): number.isNaN ? .null : .real(Double(number))
        case .decimal(let number): Self.holdsExactlyAsDouble(number) ? .text(number.description) : .blob(Data(number.description.utf8))
        case .string(let text): .text(text)
        case .boolean(let flag): .integer(flag ? 1 : 0)
        case .date(let date): .real(date.timeIntervalSinceReferenceDate)
        case .data(let data): .blob(data)
        case .uuid(let uuid): .blob(withUnsafeBytes(of: uuid.uuid) { Data($0) })
        case .uri(let url): .text(url.absoluteString)
        case .objectID(let id): id.primaryKey.map(SQLValue.integer) ?? .null
        }
    }

    /// The value of a column of `type`; a value of an unexpected storage class (written by
    /// another program) is converted where that is unambiguous, otherwise read as NULL.
    static func decode(_ value: SQLValue, as type: AttributeType) -> StoreValue {
        switch (type, value) {
        case (_, .null): return .null
        case (.integer16, .integer(let n)), (.integer32, .integer(let n)), (.integer64, .integer(let n)): return .integer(n)
        case (.integer16, .real(let n)), (.integer32, .real(let n)), (.integer64, .real(let n)):
            return Int64(exactly: n).map(StoreValue.integer) ?? .null
        case (.boolean, .integer(let n)): return .boolean(n != 0)
        case (.double, .real(let n)): return .double(n)
        case (.double, .integer(let n)): return .double(Double(n))
        case (.float, .real(let n)): return .float(Float(n))
        case (.float, .integer(let n)): return .float(Float(n))
        case (.decimal, .integer(let n)): return .decimal(Decimal(n))
        case (.decimal, .real(let n)): return Decimal(string: String(n)).map(StoreValue.decimal) ?? .decimal(Decimal(n))
        case (.decimal, .text(let text)): return Decimal(string: text).map(StoreValue.decimal) ?? .null
        case (.decimal, .blob(let digits)): return Decimal(string: String(decoding: digits, as: UTF8.self)).map(StoreValue.decimal) ?? .null
        case (.string, .text(let text)): return .string(text)
        case (.string, .integer(let n)): return .string(String(n))
        case (.string, .real(let n)): return .string(String(n))
        case (.date, .real(let n)): return .date(Date(timeIntervalSinceReferenceDate: n))
        case (.date, .integer(let n)): return .date(Date(timeIntervalSinceReferenceDate: Double(n)))
        case (.binaryData, .blob(let data)), (.transformable, .blob(let data)): return .data(data)
        case (.uuid, .blob(let data)) where data.count == 16:
            return .uuid(data.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) })
        case (.uuid, .text(let text)): return UUID(uuidString: text).map(StoreValue.uuid) ?? .null
        case (.uri, .text(let text)): return URL(string: text).map(StoreValue.uri) ?? .null
        default: return .null
        }
    }

    /// Reads column `index` of the current row as `type`, without going through ``SQLValue``
    /// for the common storage classes.
    static func read(_ statement: SQLiteStatement, at index: Int, as type: AttributeType) -> StoreValue {
        if statement.isNull(at: index) { return .null }
        switch type {
        case .integer16, .integer32, .integer64:
            if case .integer(let n) = statement.value(at: index) { return .integer(n) }
        case .boolean: return .boolean(statement.int64(at: index) != 0)
        case .double: return .double(statement.double(at: index))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: statement.double(at: index)))
        case .string: if let text = statement.string(at: index) { return .string(text) }
        default: break
        }
        return decode(statement.value(at: index), as: type)
    }
}
