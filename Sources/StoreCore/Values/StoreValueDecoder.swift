import Foundation

/// Decodes `Decodable` values from rows of store values — dictionary fetch results — so they
/// cross actors as plain `Sendable` structs. Keys are the row's keys (a property's name, or an
/// expression's `name`); each property decodes from its value through ``StoreValueConvertible``
/// (strings, integers, floating point, `Bool`, `Decimal`, `Date`, `Data`, `UUID`, `URL`,
/// ``ManagedObjectID``), or from its raw value for `RawRepresentable` enums of those. A missing
/// key or a null decodes as `nil` for an optional property.
///
/// For example:
///
/// ```swift
/// struct PostSummary: Decodable, Sendable { let title: String; let comments: Int }
/// let summaries = try StoreValueDecoder().decode([PostSummary].self, from: rows)
/// ```
public struct StoreValueDecoder: Sendable {
    /// A decoder; it holds no settings.
    public init() {}

    /// One row as a `T`.
    ///
    /// - Throws: `DecodingError` naming the key whose value is missing or of another kind.
    public func decode<T: Decodable>(_ type: T.Type, from row: [String: StoreValue]) throws -> T {
        try T(from: RowDecoder(row: row, codingPath: []))
    }

    /// Every row as a `T`, in order.
    public func decode<T: Decodable>(_ type: [T].Type, from rows: [[String: StoreValue]]) throws -> [T] {
        try rows.map { try decode(T.self, from: $0) }
    }
}

/// Reads one row: a keyed container over its values.
private struct RowDecoder: Decoder {
    let row: [String: StoreValue]
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RowContainer(row: row, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: codingPath, debugDescription: "a row decodes into a struct or class with named properties, not a list"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(Any.self, .init(codingPath: codingPath, debugDescription: "a row decodes into a struct or class with named properties, not a single value"))
    }
}

private struct RowContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let row: [String: StoreValue]
    let codingPath: [any CodingKey]
    var allKeys: [Key] { row.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { row[key.stringValue] != nil }

    func decodeNil(forKey key: Key) throws -> Bool { row[key.stringValue]?.isNull ?? true }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard let value = row[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "the row has no value named '\(key.stringValue)' (it has \(row.keys.sorted().joined(separator: ", ")))"))
        }
        return try ValueDecoder(value: value, codingPath: codingPath + [key]).decode(T.self)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw DecodingError.typeMismatch([String: Any].self, .init(codingPath: codingPath + [key], debugDescription: "a row's values are flat; '\(key.stringValue)' cannot hold a nested value"))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: codingPath + [key], debugDescription: "a row's values are flat; '\(key.stringValue)' cannot hold a list"))
    }

    func superDecoder() throws -> any Decoder { RowDecoder(row: row, codingPath: codingPath) }
    func superDecoder(forKey key: Key) throws -> any Decoder { RowDecoder(row: row, codingPath: codingPath + [key]) }
}

/// Reads one value of a row.
private struct ValueDecoder: Decoder, SingleValueDecodingContainer {
    let value: StoreValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let convertible = T.self as? any StoreValueConvertible.Type {
            if let decoded = convertible.init(storeValue: value) as? T { return decoded }
            throw mismatch(T.self)
        }
        // Enums with raw values, and other types that decode from a single value.
        return try T(from: self)
    }

    func decodeNil() -> Bool { value.isNull }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw DecodingError.typeMismatch([String: Any].self, .init(codingPath: codingPath, debugDescription: "a stored \(value.kindName) is not a nested value"))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: codingPath, debugDescription: "a stored \(value.kindName) is not a list"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decode(_ type: Bool.Type) throws -> Bool { try convert() }
    func decode(_ type: String.Type) throws -> String { try convert() }
    func decode(_ type: Double.Type) throws -> Double { try convert() }
    func decode(_ type: Float.Type) throws -> Float { try convert() }
    func decode(_ type: Int.Type) throws -> Int { try convert() }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
    func decode(_ type: Int16.Type) throws -> Int16 { try convert() }
    func decode(_ type: Int32.Type) throws -> Int32 { try convert() }
    func decode(_ type: Int64.Type) throws -> Int64 { try convert() }
    func decode(_ type: UInt.Type) throws -> UInt { try integer() }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }

    private func convert<T: StoreValueConvertible>() throws -> T {
        guard let converted = T(storeValue: value) else { throw mismatch(T.self) }
        return converted
    }

    private func integer<T: FixedWidthInteger>() throws -> T {
        guard let number = Int64(storeValue: value), let converted = T(exactly: number) else { throw mismatch(T.self) }
        return converted
    }

    private func mismatch(_ type: Any.Type) -> DecodingError {
        DecodingError.typeMismatch(type, .init(codingPath: codingPath, debugDescription: "a stored \(value.kindName) (\(value)) cannot be read as \(type)"))
    }
}
