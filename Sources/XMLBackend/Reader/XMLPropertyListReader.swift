import Foundation
import StoreCore

/// Reads an XML property list (`<plist version="1.0">…</plist>`, the store metadata's form) into a
/// ``PropertyListValue``: `dict`/`key`, `array`, `string`, `integer`, `real`, `true`, `false`,
/// `date` (ISO 8601) and `data` (base64). Nesting deeper than ``maximumDepth`` is refused.
///
/// For example:
///
/// ```swift
/// // positioned on <plist>
/// let metadata = try XMLPropertyListReader(cursor: cursor).readPlist(isEmpty: false)
/// ```
struct XMLPropertyListReader {
    /// Deeper nesting is refused: Core Data's metadata is three levels deep.
    static let maximumDepth = 64

    let cursor: XMLNodeCursor
    private let names: Names

    private struct Names {
        let dict, key, array, string, integer, real, trueValue, falseValue, date, data: UnsafePointer<UInt8>?
        init(_ reader: XMLTextReader) {
            dict = reader.interned("dict")
            key = reader.interned("key")
            array = reader.interned("array")
            string = reader.interned("string")
            integer = reader.interned("integer")
            real = reader.interned("real")
            trueValue = reader.interned("true")
            falseValue = reader.interned("false")
            date = reader.interned("date")
            data = reader.interned("data")
        }
    }

    init(cursor: XMLNodeCursor) {
        self.cursor = cursor
        names = Names(cursor.reader)
    }

    /// Reads the `plist` element that just started: its one value (an empty plist is an empty
    /// dictionary).
    func readPlist(isEmpty: Bool) throws(StoreError) -> PropertyListValue {
        guard !isEmpty else { return .dictionary([:]) }
        guard let event = try cursor.next() else { throw StoreError(.truncated, "the file ends inside the metadata") }
        guard case .start(let name, let isValueEmpty) = event else { return .dictionary([:]) }
        let value = try readValue(name: name, isEmpty: isValueEmpty, depth: 1)
        guard case .end? = try cursor.next() else { throw cursor.error(.corrupt, "a property list holds more than one value") }
        return value
    }

    private func readValue(name: UnsafePointer<UInt8>?, isEmpty: Bool, depth: Int) throws(StoreError) -> PropertyListValue {
        guard depth <= Self.maximumDepth else {
            throw cursor.error(.corrupt, "the metadata nests deeper than \(Self.maximumDepth) levels")
        }
        switch name {
        case names.dict:
            var entries: [String: PropertyListValue] = [:]
            guard !isEmpty else { return .dictionary(entries) }
            while let event = try cursor.next() {
                guard case .start(let keyName, let isKeyEmpty) = event else { return .dictionary(entries) }
                guard keyName == names.key else { throw cursor.error(.corrupt, "a metadata dictionary value without its <key>") }
                let key = String(decoding: try cursor.text(isEmpty: isKeyEmpty), as: UTF8.self)
                guard case .start(let valueName, let isValueEmpty)? = try cursor.next() else {
                    throw cursor.error(.corrupt, "the metadata key '\(key)' has no value")
                }
                entries[key] = try readValue(name: valueName, isEmpty: isValueEmpty, depth: depth + 1)
            }
            throw StoreError(.truncated, "the file ends inside the metadata")
        case names.array:
            var elements: [PropertyListValue] = []
            guard !isEmpty else { return .array(elements) }
            while let event = try cursor.next() {
                guard case .start(let elementName, let isElementEmpty) = event else { return .array(elements) }
                elements.append(try readValue(name: elementName, isEmpty: isElementEmpty, depth: depth + 1))
            }
            throw StoreError(.truncated, "the file ends inside the metadata")
        case names.string:
            return .string(String(decoding: try cursor.text(isEmpty: isEmpty), as: UTF8.self))
        case names.integer:
            guard let integer = XMLValueDecoding.integer(try cursor.text(isEmpty: isEmpty)) else {
                throw cursor.error(.corrupt, "a metadata <integer> that is not a 64-bit integer")
            }
            return .integer(integer)
        case names.real:
            guard let real = XMLValueDecoding.double(try cursor.text(isEmpty: isEmpty)) else {
                throw cursor.error(.corrupt, "a metadata <real> that is not a number")
            }
            return .real(real)
        case names.trueValue, names.falseValue:
            _ = try cursor.text(isEmpty: isEmpty)
            return .boolean(name == names.trueValue)
        case names.date:
            guard let date = XMLValueDecoding.date(try cursor.text(isEmpty: isEmpty)) else {
                throw cursor.error(.corrupt, "a metadata <date> that is not an ISO 8601 date")
            }
            return .date(date)
        case names.data:
            guard let data = XMLValueDecoding.base64(try cursor.text(isEmpty: isEmpty)) else {
                throw cursor.error(.corrupt, "a metadata <data> that is not base64")
            }
            return .data(data)
        default:
            throw cursor.error(.corrupt, "an element the metadata's property list cannot hold")
        }
    }
}
