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
    /// `""`.
    public static var emptyValue: String { "" }

    /// `.string(self)`.
    public var storeValue: StoreValue { .string(self) }
    /// Reads `.string` only; `nil` for any other kind.
    public init?(storeValue: StoreValue) {
        guard case .string(let v) = storeValue else { return nil }
        self = v
    }
}

extension Bool: StoreValueConvertible {
    /// `false`.
    public static var emptyValue: Bool { false }

    /// `.boolean(self)`.
    public var storeValue: StoreValue { .boolean(self) }
    /// Reads `.boolean`, and `.integer` as `true` when nonzero; `nil` for other kinds.
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
    /// `0`.
    public static var emptyValue: Self { 0 }

    /// `.integer`, widened to `Int64`.
    public var storeValue: StoreValue { .integer(Int64(self)) }
    /// Reads `.integer` when it fits exactly (`nil` rather than truncating) and `.boolean` as 1 or 0.
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
    /// `0`.
    public static var emptyValue: Double { 0 }

    /// `.double(self)`.
    public var storeValue: StoreValue { .double(self) }
    /// Reads `.double`, and converts `.float`, `.integer` and `.decimal`; `nil` for other kinds.
    public init?(storeValue: StoreValue) {
        switch storeValue {
        case .double(let v): self = v
        case .float(let v): self = Double(v)
        case .integer(let v): self = Double(v)
        case .decimal(let v): self = v.nearestDouble
        default: return nil
        }
    }
}

extension Float: StoreValueConvertible {
    /// `0`.
    public static var emptyValue: Float { 0 }

    /// `.float(self)`.
    public var storeValue: StoreValue { .float(self) }
    /// Reads `.float`, and converts `.double` (rounded to `Float`) and `.integer`; `nil` for other kinds.
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
    /// `0`.
    public static var emptyValue: Decimal { 0 }

    /// `.decimal(self)`.
    public var storeValue: StoreValue { .decimal(self) }
    /// Reads `.decimal`, and converts `.integer` and `.double`; `nil` for other kinds.
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
    /// The reference date, 2001-01-01 00:00:00 UTC (`timeIntervalSinceReferenceDate` 0).
    public static var emptyValue: Date { Date(timeIntervalSinceReferenceDate: 0) }

    /// `.date(self)`.
    public var storeValue: StoreValue { .date(self) }
    /// Reads `.date` only; `nil` for any other kind.
    public init?(storeValue: StoreValue) {
        guard case .date(let v) = storeValue else { return nil }
        self = v
    }
}

extension Data: StoreValueConvertible {
    /// Empty data.
    public static var emptyValue: Data { Data() }

    /// `.data(self)`.
    public var storeValue: StoreValue { .data(self) }
    /// Reads `.data` only; `nil` for any other kind.
    public init?(storeValue: StoreValue) {
        guard case .data(let v) = storeValue else { return nil }
        self = v
    }
}

extension UUID: StoreValueConvertible {
    /// The nil UUID, all sixteen bytes zero.
    public static var emptyValue: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }

    /// `.uuid(self)`.
    public var storeValue: StoreValue { .uuid(self) }
    /// Reads `.uuid` only; `nil` for any other kind.
    public init?(storeValue: StoreValue) {
        guard case .uuid(let v) = storeValue else { return nil }
        self = v
    }
}

extension URL: StoreValueConvertible {
    /// The file URL of the root directory, `file:///`.
    public static var emptyValue: URL { URL(fileURLWithPath: "/") }

    /// `.uri(self)`.
    public var storeValue: StoreValue { .uri(self) }
    /// Reads `.uri` only; `nil` for any other kind.
    public init?(storeValue: StoreValue) {
        guard case .uri(let v) = storeValue else { return nil }
        self = v
    }
}

extension ManagedObjectID: StoreValueConvertible {
    /// A temporary ID with no entity name, no store and key 0, which names no object.
    public static var emptyValue: ManagedObjectID { ManagedObjectID(space: .init(entityName: "", storeIdentifier: nil, isTemporary: true), key: 0) }

    /// `.objectID(self)`.
    public var storeValue: StoreValue { .objectID(self) }
    /// Reads `.objectID` only; `nil` for any other kind.
    public init?(storeValue: StoreValue) {
        guard case .objectID(let v) = storeValue else { return nil }
        self = v
    }
}

extension StoreValue: StoreValueConvertible {
    /// `.null`.
    public static var emptyValue: StoreValue { .null }

    /// The value itself.
    public var storeValue: StoreValue { self }
    /// The value itself; never fails.
    public init?(storeValue: StoreValue) { self = storeValue }
}

extension Optional: StoreValueConvertible where Wrapped: StoreValueConvertible {
    /// `nil`.
    public static var emptyValue: Wrapped? { nil }

    /// The wrapped value's store value, or `.null` for `nil`.
    public var storeValue: StoreValue { self?.storeValue ?? .null }
    /// `.null` reads as `nil`, anything else as `Wrapped` reads it; fails when `Wrapped` cannot.
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
