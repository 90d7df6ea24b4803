import Foundation
import StoreCore

/// The preserved values of a deleted object as a SQL store keeps them in its history: a JSON
/// object by attribute name, with binary values as upper-case hex, decimals as text and dates as
/// seconds since 2001 (SQLite builds it with `json_object` in SQL; PostgreSQL with ``encode(_:)``).
///
/// For example:
///
/// ```swift
/// let json = HistoryTombstone.encode(["title": .string("Hello")])    // {"title":"Hello"}
/// HistoryTombstone.decode(json, entity: post)                         // ["title": .string("Hello")]
/// ```
package enum HistoryTombstone {
    /// The JSON of `values`.
    package static func encode(_ values: [String: StoreValue]) -> String {
        var object: [String: Any] = [:]
        for (key, value) in values {
            switch value {
            case .null: object[key] = NSNull()
            case .integer(let number): object[key] = NSNumber(value: number)
            case .double(let number): object[key] = number.isFinite ? NSNumber(value: number) : NSNull()
            case .float(let number): object[key] = number.isFinite ? NSNumber(value: Double(number)) : NSNull()
            case .boolean(let flag): object[key] = NSNumber(value: flag ? 1 : 0)
            case .date(let date): object[key] = NSNumber(value: date.timeIntervalSinceReferenceDate)
            case .decimal(let number): object[key] = number.description
            case .string(let text): object[key] = text
            case .uri(let url): object[key] = url.absoluteString
            case .data(let data): object[key] = data.map { String(format: "%02X", $0) }.joined()
            case .uuid(let uuid): object[key] = withUnsafeBytes(of: uuid.uuid) { Data($0) }.map { String(format: "%02X", $0) }.joined()
            case .objectID(let id): object[key] = id.primaryKey.map { NSNumber(value: $0) } ?? NSNull()
            }
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// A tombstone's JSON read back by attribute type.
    package static func decode(_ json: String, entity: EntityDescription) -> [String: StoreValue] {
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
            values[key] = SQLValueCoder.decode(sql, as: attribute.attributeType)
        }
        return values
    }
}

extension Data {
    /// Bytes from SQLite's `hex()` text (upper-case pairs); `nil` for anything else.
    package init?(hexString: String) {
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
