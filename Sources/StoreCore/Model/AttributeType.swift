import Foundation

/// The type of an attribute, as in Core Data's `NSAttributeDescription.AttributeType`.
///
/// For example:
///
/// ```swift
/// .attribute("magnitude", .double)
/// .attribute("palette", .transformable(named: "PaletteTransformer"))
/// ```
public enum AttributeType: Sendable, Hashable {
    /// A 16-bit signed integer (Core Data's Integer 16), held as `StoreValue.integer`.
    case integer16
    /// A 32-bit signed integer (Core Data's Integer 32), held as `StoreValue.integer`.
    case integer32
    /// A 64-bit signed integer (Core Data's Integer 64), held as `StoreValue.integer`.
    case integer64
    /// A base-10 number (Core Data's Decimal), held as Foundation's `Decimal`.
    case decimal
    /// A 64-bit floating-point number (Core Data's Double).
    case double
    /// A 32-bit floating-point number (Core Data's Float).
    case float
    /// Text (Core Data's String).
    case string
    /// A Boolean (Core Data's Boolean).
    case boolean
    /// A point in time (Core Data's Date), held as Foundation's `Date`.
    case date
    /// Raw bytes (Core Data's Binary Data), held as Foundation's `Data`.
    case binaryData
    /// A UUID (Core Data's UUID).
    case uuid
    /// A URL (Core Data's URI).
    case uri
    /// A Swift value stored as data through the transformer registered under this name
    /// (see ``AttributeValueTransformers``).
    case transformable(named: String)
    /// A managed object ID kept as a value rather than through a relationship (Core Data's ObjectID).
    case objectID
    /// Core Data's "Undefined" type: a transient attribute holding any value (Xcode writes
    /// such attributes without an `attributeType`). Only transient attributes may have it.
    case undefined
    /// Core Data's composite type (iOS 17): the attribute groups other attributes, its
    /// ``CompositeAttributeDescription/elements``, and its value is a dictionary of theirs.
    case composite

    /// The name Core Data's model files use for the type.
    public var name: String {
        switch self {
        case .integer16: "Integer 16"
        case .integer32: "Integer 32"
        case .integer64: "Integer 64"
        case .decimal: "Decimal"
        case .double: "Double"
        case .float: "Float"
        case .string: "String"
        case .boolean: "Boolean"
        case .date: "Date"
        case .binaryData: "Binary"
        case .uuid: "UUID"
        case .uri: "URI"
        case .transformable: "Transformable"
        case .objectID: "ObjectID"
        case .undefined: "Undefined"
        case .composite: "Composite"
        }
    }

    /// Whether ``coerce(_:)`` would take `value`, answered without converting (or copying) a
    /// value that already has this type — the check a save makes for every attribute.
    func accepts(_ value: StoreValue) -> Bool {
        storesAsIs(value) || coerce(value) != nil
    }

    /// Whether `value` is of the kind this type stores with nothing to check or convert, so
    /// that ``coerce(_:)`` would return it unchanged (a setter then keeps it without a copy).
    func storesAsIs(_ value: StoreValue) -> Bool {
        value.isNull || HeldValueCase(self).holds(value)
    }

    /// Converts a value to this type without losing information, or returns `nil`.
    ///
    /// Integers fit-check into 16/32/64 bits; integers widen to floating point and decimal;
    /// `null` passes (optionality is checked separately).
    public func coerce(_ value: StoreValue) -> StoreValue? {
        switch (self, value) {
        case (_, .null): return .null
        case (.integer16, .integer(let v)): return Int16(exactly: v) != nil ? value : nil
        case (.integer32, .integer(let v)): return Int32(exactly: v) != nil ? value : nil
        case (.integer64, .integer): return value
        case (.integer16, .boolean(let b)), (.integer32, .boolean(let b)), (.integer64, .boolean(let b)):
            return .integer(b ? 1 : 0)
        case (.double, .double): return value
        case (.double, .float(let v)): return .double(Double(v))
        case (.double, .integer(let v)): return .double(Double(v))
        case (.float, .float): return value
        case (.float, .double(let v)): return .float(Float(v))
        case (.float, .integer(let v)): return .float(Float(v))
        case (.decimal, .decimal): return value
        case (.decimal, .integer(let v)): return .decimal(Decimal(v))
        // `Decimal(Double)` traps on infinities; no decimal holds them.
        case (.decimal, .double(let v)): return v.isFinite ? .decimal(Decimal(v)) : nil
        case (.string, .string): return value
        case (.boolean, .boolean): return value
        case (.boolean, .integer(let v)) where v == 0 || v == 1: return .boolean(v == 1)
        case (.date, .date): return value
        case (.binaryData, .data), (.transformable, .data): return value
        case (.uuid, .uuid): return value
        case (.uri, .uri): return value
        case (.objectID, .objectID): return value
        case (.undefined, _): return value
        default: return nil
        }
    }
}
