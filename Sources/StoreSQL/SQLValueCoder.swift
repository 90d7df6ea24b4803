import Foundation
import StoreCore

/// Attribute values as SQL storage classes and back, as Core Data stores them: integers and
/// booleans as integers, doubles and floats as reals, dates as real seconds since 2001-01-01,
/// strings and URIs as text, binary data and transformed values as blobs, UUIDs as their 16
/// bytes, to-one references as the destination's `Z_PK`; decimals as each database keeps them
/// (SQLite: their digits as text or a blob; PostgreSQL: `NUMERIC`).
///
/// For example:
///
/// ```swift
/// SQLValueCoder.encode(.date(Date(timeIntervalSinceReferenceDate: 60))) { .text($0.description) }   // .real(60)
/// SQLValueCoder.decode(.integer(1), as: .boolean)                                                  // .boolean(true)
/// ```
package enum SQLValueCoder {
    /// A value as the storage class Core Data gives it; `decimal` says how the database keeps
    /// decimals.
    package static func encode(_ value: StoreValue, decimal: (Decimal) -> SQLValue) -> SQLValue {
        switch value {
        case .null: .null
        case .integer(let number): .integer(number)
        case .double(let number): number.isNaN ? .null : .real(number)
        case .float(let number): number.isNaN ? .null : .real(Double(number))
        case .decimal(let number): decimal(number)
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
    package static func decode(_ value: SQLValue, as type: AttributeType) -> StoreValue {
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
}
