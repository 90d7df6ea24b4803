import Foundation

/// A property list value: what a binary property list (`bplist00`) holds, such as the
/// metadata Core Data keeps in `Z_METADATA.Z_PLIST`.
///
/// Integers are `Int64`; the reader refuses larger unsigned values (`PropertyListError.Code.unsupported`).
/// Dates are stored as seconds since 2001-01-01, like `Date.timeIntervalSinceReferenceDate`.
/// `uid` is the object reference `NSKeyedArchiver` writes. Sets are not values: the reader
/// refuses them.
///
/// For example:
///
/// ```swift
/// let metadata: PropertyListValue = ["NSStoreType": "SQLite", "NSPersistenceFrameworkVersion": 637]
/// metadata["NSStoreType"]?.stringValue   // "SQLite"
/// ```
package indirect enum PropertyListValue: Sendable, Hashable {
    case string(String)
    case integer(Int64)
    case real(Double)
    case boolean(Bool)
    case date(Date)
    case data(Data)
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])
    case uid(UInt64)
}

extension PropertyListValue {
    package var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    package var integerValue: Int64? { if case .integer(let value) = self { value } else { nil } }
    package var realValue: Double? { if case .real(let value) = self { value } else { nil } }
    package var booleanValue: Bool? { if case .boolean(let value) = self { value } else { nil } }
    package var dateValue: Date? { if case .date(let value) = self { value } else { nil } }
    package var dataValue: Data? { if case .data(let value) = self { value } else { nil } }
    package var arrayValue: [PropertyListValue]? { if case .array(let value) = self { value } else { nil } }
    package var dictionaryValue: [String: PropertyListValue]? {
        if case .dictionary(let value) = self { value } else { nil }
    }

    /// The value under `key` when this is a dictionary; `nil` otherwise.
    package subscript(key: String) -> PropertyListValue? { dictionaryValue?[key] }
}
