import Foundation

/// The one value type that crosses the boundary between contexts and stores.
///
/// Every attribute value a store reads or writes, every constant in a predicate and
/// every to-one reference in a snapshot is a `StoreValue`. Convert to and from Swift
/// types at the edges with ``StoreValueConvertible``.
///
/// For example:
///
/// ```swift
/// let title: StoreValue = .string("Misty Morning")
/// let magnitude = StoreValue(2.5)          // .double(2.5)
/// let when = StoreValue(Date())            // .date(...)
/// ```
public enum StoreValue: Sendable, Hashable {
    /// No value: an attribute that is `nil`, or an empty to-one relationship.
    case null
    /// A whole number: the value of an Integer 16, 32 or 64 attribute.
    case integer(Int64)
    /// A Double attribute's value.
    case double(Double)
    /// A Float attribute's value.
    case float(Float)
    /// A Decimal attribute's value.
    case decimal(Decimal)
    /// A String attribute's value.
    case string(String)
    /// A Boolean attribute's value.
    case boolean(Bool)
    /// A Date attribute's value.
    case date(Date)
    /// A Binary Data attribute's value, or a transformable attribute's encoded value.
    case data(Data)
    /// A UUID attribute's value.
    case uuid(UUID)
    /// A URI attribute's value.
    case uri(URL)
    /// An object ID: a to-one relationship's destination, or an Object ID attribute's value.
    case objectID(ManagedObjectID)

    /// Wraps a Swift value; `nil` becomes ``null``.
    public init<T: StoreValueConvertible>(_ value: T?) {
        self = value?.storeValue ?? .null
    }

    /// Whether this is ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// A short name for the kind of value, used in error messages.
    public var kindName: String {
        switch self {
        case .null: "null"
        case .integer: "integer"
        case .double: "double"
        case .float: "float"
        case .decimal: "decimal"
        case .string: "string"
        case .boolean: "boolean"
        case .date: "date"
        case .data: "binary data"
        case .uuid: "UUID"
        case .uri: "URI"
        case .objectID: "object ID"
        }
    }

    /// The value as a `Double` when it is numeric (integers, floats, decimals, booleans and dates
    /// — dates as seconds since 2001-01-01, as Core Data compares them).
    public var numericValue: Double? {
        switch self {
        case .integer(let v): Double(v)
        case .double(let v): v
        case .float(let v): Double(v)
        case .decimal(let v): v.nearestDouble
        case .boolean(let v): v ? 1 : 0
        case .date(let v): v.timeIntervalSinceReferenceDate
        default: nil
        }
    }

    /// The value as a Swift value of the matching Foundation type (`nil` for ``null``).
    public var anyValue: Any? {
        switch self {
        case .null: nil
        case .integer(let v): v
        case .double(let v): v
        case .float(let v): v
        case .decimal(let v): v
        case .string(let v): v
        case .boolean(let v): v
        case .date(let v): v
        case .data(let v): v
        case .uuid(let v): v
        case .uri(let v): v
        case .objectID(let v): v
        }
    }
}

extension StoreValue: CustomStringConvertible {
    public var description: String {
        switch self {
        case .null: "nil"
        case .integer(let v): String(v)
        case .double(let v): String(v)
        case .float(let v): String(v)
        case .decimal(let v): "\(v)"
        case .string(let v): "\"\(v)\""
        case .boolean(let v): v ? "true" : "false"
        case .date(let v): v.formatted(.iso8601)
        case .data(let v): "<\(v.count) bytes>"
        case .uuid(let v): v.uuidString
        case .uri(let v): v.absoluteString
        case .objectID(let v): v.uriRepresentation.absoluteString
        }
    }
}

/// Literals for the common cases. (There is deliberately no `nil` literal: `StoreValue?` must
/// stay unambiguous; write ``null``.)
extension StoreValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral
{
    /// A string literal is `.string`.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer literal is `.integer`.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A floating-point literal is `.double`.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// `true` and `false` are `.boolean`.
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
}
