import Foundation
import Synchronization

/// Turns the Swift values of a transformable attribute into data and back.
///
/// Register a transformer under the name the model uses; values of other types are refused
/// on the way in, and data is only ever decoded as the transformer's own type — never as
/// whatever type the data claims to hold.
///
/// For example:
///
/// ```swift
/// struct Palette: Codable, Sendable { var colors: [String] }
/// AttributeValueTransformers.register(CodableAttributeTransformer<Palette>(), named: "PaletteTransformer")
/// // model: .attribute("palette", .transformable(named: "PaletteTransformer"))
/// ```
public protocol AttributeValueTransformer: Sendable {
    /// The Swift type the transformer handles.
    var valueType: Any.Type { get }
    /// Encodes a value; throws when it is not of ``valueType``.
    func encode(_ value: Any) throws -> Data
    /// Decodes data produced by ``encode(_:)``.
    func decode(_ data: Data) throws -> Any
}

/// A transformer for any `Codable` type, stored as JSON.
///
/// For example:
///
/// ```swift
/// AttributeValueTransformers.register(CodableAttributeTransformer<[String]>(), named: "Tags")
/// ```
public struct CodableAttributeTransformer<Value: Codable & Sendable>: AttributeValueTransformer {
    /// A transformer storing `Value`s as JSON (keys sorted).
    public init() {}
    /// `Value`, the one type the transformer encodes and decodes.
    public var valueType: Any.Type { Value.self }

    /// Encodes the value as JSON, keys sorted; throws `TransformerError` for a value that is not a `Value`.
    public func encode(_ value: Any) throws -> Data {
        guard let typed = value as? Value else {
            throw TransformerError("expected a value of type \(Value.self), got \(type(of: value))")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(typed)
    }

    /// Decodes the JSON as a `Value`; throws the `JSONDecoder`'s error for data that is not one.
    public func decode(_ data: Data) throws -> Any {
        try JSONDecoder().decode(Value.self, from: data)
    }
}

/// The error a transformer throws for a value it does not handle.
///
/// For example:
///
/// ```swift
/// func encode(_ value: Any) throws -> Data {      // in your own AttributeValueTransformer
///     guard let palette = value as? Palette else {
///         throw TransformerError("expected a Palette, got \(type(of: value))")
///     }
///     return try JSONEncoder().encode(palette)
/// }
/// ```
public struct TransformerError: Error, CustomStringConvertible, Sendable {
    public let description: String
    /// An error saying, in words, what the transformer refused.
    public init(_ description: String) { self.description = description }
}

/// The registry of transformers for transformable attributes, by name. Core Data's default
/// transformers (`NSSecureUnarchiveFromData`, `NSKeyedUnarchiveFromData`: a
/// ``KeyedArchiveTransformer``) are registered from the start; registering another under
/// their names replaces them. A transformable attribute whose name nobody registered uses the
/// default keyed-archive transformer, with a warning logged once, as Core Data does.
///
/// For example:
///
/// ```swift
/// AttributeValueTransformers.register(CodableAttributeTransformer<Palette>(), named: "PaletteTransformer")
/// AttributeValueTransformers.transformer(named: "PaletteTransformer")   // the transformer
/// ```
public enum AttributeValueTransformers {
    private static let registry = Mutex<[String: any AttributeValueTransformer]>(
        Dictionary(uniqueKeysWithValues: KeyedArchiveTransformer.names.map { ($0, KeyedArchiveTransformer() as any AttributeValueTransformer) }))

    /// Registers (or replaces) a transformer.
    public static func register(_ transformer: any AttributeValueTransformer, named name: String) {
        registry.withLock { $0[name] = transformer }
    }

    /// The transformer registered under `name`.
    public static func transformer(named name: String) -> (any AttributeValueTransformer)? {
        registry.withLock { $0[name] }
    }
}
