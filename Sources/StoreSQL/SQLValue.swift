import Foundation

/// A value in one of SQLite's five storage classes: what statements bind and columns hold.
///
/// Attribute values are converted to these at the edge (``SQLiteValueCoder``); nothing else
/// in the backend deals in SQLite's C types.
///
/// For example:
///
/// ```swift
/// try statement.bind([.text("Misty Morning"), .integer(3)])
/// ```
package enum SQLValue: Hashable, Sendable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    package var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let value): "<\(value.count) bytes>"
        }
    }
}
