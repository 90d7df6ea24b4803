import Foundation

/// Core Data's default transformers, `NSSecureUnarchiveFromData` and
/// `NSKeyedUnarchiveFromData`, registered under those names from the start: values are stored
/// as `NSKeyedArchiver` archives (``KeyedArchive``), so the transformable attributes of a store
/// Apple's Core Data wrote read on Linux, and values saved here read on Apple platforms.
/// Only Foundation's value types are read and written (strings, numbers, `Decimal`, `Data`,
/// `Date`, `URL`, `UUID`, `NSNull`, arrays, dictionaries, sets); anything else is refused with
/// a clear error.
///
/// For example:
///
/// ```swift
/// // model: .attribute("tags", .transformable(named: "NSSecureUnarchiveFromData"))
/// try post.setValue(["swift", "linux"], forKey: "tags")
/// try post.value(forKey: "tags") as? [String]   // ["swift", "linux"]
/// ```
public struct KeyedArchiveTransformer: AttributeValueTransformer {
    /// The keyed-archive transformer; it holds no settings.
    public init() {}
    /// Any of the value types a keyed archive holds.
    public var valueType: Any.Type { Any.self }

    /// Archives the value as an `NSKeyedArchiver` binary property list; throws `PropertyListError`
    /// (`classNotAllowed`) for a type outside Foundation's value types.
    public func encode(_ value: Any) throws -> Data { try KeyedArchive.archive(value) }
    /// Unarchives a keyed archive's root value, refusing classes outside Foundation's value types, cycles
    /// and nesting deeper than `KeyedArchive.maxDepth`.
    public func decode(_ data: Data) throws -> Any { try KeyedArchive.unarchive(data) }

    /// The names Core Data gives its default transformers.
    public static let names = ["NSSecureUnarchiveFromData", "NSKeyedUnarchiveFromData"]
}
