import Foundation

/// A Swift type that converts to and from ``StoreValue``.
///
/// The typed accessors of managed objects (`@Attribute var title: String`) and predicate
/// arguments use this conversion. Foundation's value types, the integer and floating-point
/// types, `Bool`, `ManagedObjectID` and optionals of all of them conform.
///
/// For example:
///
/// ```swift
/// let value = "Misty Morning".storeValue      // .string("Misty Morning")
/// let title = String(storeValue: value)       // "Misty Morning"
/// ```
public protocol StoreValueConvertible {
    /// The value as it crosses to a store.
    var storeValue: StoreValue { get }
    /// Reads a value back; `nil` when the store value is of another kind.
    init?(storeValue: StoreValue)
    /// What a non-optional typed property reads while its attribute holds no value yet (an
    /// object just inserted, before a required value is set): `""`, `0`, `false`, an empty
    /// value. Saving such an object still fails validation.
    static var emptyValue: Self { get }
}

extension String: StoreValueConvertible {
    public static var emptyValue: String { "" }

    public var storeValue: StoreValue { .string(self) }
    public init?(storeValue: StoreValue) {
        guard case .string(let v) = storeValue else { return nil }
        self = v
    }
}

extension Bool: StoreValueConvertible {
    public static var emptyValue: Bool { false }

    public var storeValue: StoreValue { .boolean(self) }
    public init?(storeValue: StoreValue) {
        switch storeValue {
        case .boolean(let v): self = v
        case .integer(let v): self = v != 0
        default: return nil
        }
    }
}

/// Integers convert losslessly; reading a value that does not fit fails rather than truncating.
extension StoreValueConvertible where Self: FixedWidthInteger {
    public static var emptyValue: Self { 0 }

    public var storeValue: StoreValue { .integer(Int64(self)) }
    public init?(storeValue: StoreValue) {
        switch storeValue {
        case .integer(let v):
            guard let exact = Self(exactly: v) else { return nil }
            self = exact
        case .boolean(let v): self = v ? 1 : 0
        default: return nil
        }
    }
}

extension Int: StoreValueConvertible {}
extension Int16: StoreValueConvertible {}
extension Int32: StoreValueConvertible {}
extension Int64: StoreValueConvertible {}

extension Double: StoreValueConvertible {
    public static var emptyValue: Double { 0 }

    public var storeValue: StoreValue { .double(self) }
    public init?(storeValue: StoreValue) {
        switch storeValue {
        case .double(let v): self = v
        case .float(let v): self = Double(v)
        case .integer(let v): self = Double(v)
        case .decimal(let v): self = NSDecimalNumber(decimal: v).doubleValue
        default: return nil
        }
    }
}

extension Float: StoreValueConvertible {
    public static var emptyValue: Float { 0 }

    public var storeValue: StoreValue { .float(self) }
    public init?(storeValue: StoreValue) {
        switch storeValue {
        case .float(let v): self = v
        case .double(let v): self = Float(v)
        case .integer(let v): self = Float(v)
        default: return nil
        }
    }
}

extension Decimal: StoreValueConvertible {
    public static var emptyValue: Decimal { 0 }

    public var storeValue: StoreValue { .decimal(self) }
    public init?(storeValue: StoreValue) {
        switch storeValue {
        case .decimal(let v): self = v
        case .integer(let v): self = Decimal(v)
        case .double(let v): self = Decimal(v)
        default: return nil
        }
    }
}

extension Date: StoreValueConvertible {
    public static var emptyValue: Date { Date(timeIntervalSinceReferenceDate: 0) }

    public var storeValue: StoreValue { .date(self) }
    public init?(storeValue: StoreValue) {
        guard case .date(let v) = storeValue else { return nil }
        self = v
    }
}

extension Data: StoreValueConvertible {
    public static var emptyValue: Data { Data() }

    public var storeValue: StoreValue { .data(self) }
    public init?(storeValue: StoreValue) {
        guard case .data(let v) = storeValue else { return nil }
        self = v
    }
}

extension UUID: StoreValueConvertible {
    public static var emptyValue: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }

    public var storeValue: StoreValue { .uuid(self) }
    public init?(storeValue: StoreValue) {
        guard case .uuid(let v) = storeValue else { return nil }
        self = v
    }
}

extension URL: StoreValueConvertible {
    public static var emptyValue: URL { URL(fileURLWithPath: "/") }

    public var storeValue: StoreValue { .uri(self) }
    public init?(storeValue: StoreValue) {
        guard case .uri(let v) = storeValue else { return nil }
        self = v
    }
}

extension ManagedObjectID: StoreValueConvertible {
    public static var emptyValue: ManagedObjectID { ManagedObjectID(space: .init(entityName: "", storeIdentifier: nil, isTemporary: true), key: 0) }

    public var storeValue: StoreValue { .objectID(self) }
    public init?(storeValue: StoreValue) {
        guard case .objectID(let v) = storeValue else { return nil }
        self = v
    }
}

extension StoreValue: StoreValueConvertible {
    public static var emptyValue: StoreValue { .null }

    public var storeValue: StoreValue { self }
    public init?(storeValue: StoreValue) { self = storeValue }
}

extension Optional: StoreValueConvertible where Wrapped: StoreValueConvertible {
    public static var emptyValue: Wrapped? { nil }

    public var storeValue: StoreValue { self?.storeValue ?? .null }
    public init?(storeValue: StoreValue) {
        if storeValue.isNull {
            self = .none
        } else if let wrapped = Wrapped(storeValue: storeValue) {
            self = .some(wrapped)
        } else {
            return nil
        }
    }
}
