import StoreCore

/// The static kind of a compiled SQL value: what the in-memory evaluator would hold there.
///
/// SQLite compares across storage classes and converts with column affinity (`5 = '5'` in an
/// INTEGER column is true); the evaluator never considers a number equal to a string, nor a
/// date ordered against a number. Knowing each side's kind at compile time lets such
/// comparisons compile to constants, so SQL gives the evaluator's answer.
///
/// For example:
///
/// ```swift
/// SQLKind(AttributeType.date)                         // .date (REAL seconds in SQL)
/// SQLKind.integer.canEqual(.string)                   // false: `depth == '10'` is never true
/// SQLKind.date.canOrder(against: .real)               // false: `time < 5` is never true
/// ```
package enum SQLKind: Hashable, Sendable {
    case integer
    case real
    case boolean
    case decimal
    /// A number of no single kind (a TERNARY of an integer and a double); read by storage class.
    case number
    case string
    case date
    case data
    case uuid
    case uri
    /// An object, by the name of its (declared) entity: its `Z_PK` in SQL.
    case object(String)
    /// The constant NULL.
    case null
    /// Not known at compile time (read by storage class; compared as SQLite does).
    case unknown

    /// Kinds the evaluator compares with each other.
    package enum Family: Hashable {
        case number, string, date, data, uuid, uri, object
    }

    package var family: Family? {
        switch self {
        case .integer, .real, .boolean, .decimal, .number: .number
        case .string: .string
        case .date: .date
        case .data: .data
        case .uuid: .uuid
        case .uri: .uri
        case .object: .object
        case .null, .unknown: nil
        }
    }

    package init(_ type: AttributeType) {
        switch type {
        case .integer16, .integer32, .integer64: self = .integer
        case .double, .float: self = .real
        case .decimal: self = .decimal
        case .boolean: self = .boolean
        case .string: self = .string
        case .date: self = .date
        case .binaryData, .transformable: self = .data
        case .uuid: self = .uuid
        case .uri: self = .uri
        case .objectID, .undefined, .composite: self = .unknown
        }
    }

    package init(_ value: StoreValue) {
        switch value {
        case .null: self = .null
        case .integer: self = .integer
        case .double, .float: self = .real
        case .decimal: self = .decimal
        case .string: self = .string
        case .boolean: self = .boolean
        case .date: self = .date
        case .data: self = .data
        case .uuid: self = .uuid
        case .uri: self = .uri
        case .objectID(let id): self = .object(id.entityName)
        }
    }

    /// Whether two non-NULL values of these kinds can be equal (NULL and unknown kinds: decided
    /// when the query runs).
    package func canEqual(_ other: SQLKind) -> Bool {
        guard let a = family, let b = other.family else { return true }
        return a == b
    }

    /// Whether values of the two kinds have an order (`<`, `BETWEEN`): numbers, strings, dates,
    /// data and UUIDs among their own kind; never NULL, URIs or objects.
    package func canOrder(against other: SQLKind) -> Bool {
        if self == .null || other == .null { return false }
        let orderable: Set<Family> = [.number, .string, .date, .data, .uuid]
        switch (family, other.family) {
        case (nil, nil): return true
        case (let a?, nil): return orderable.contains(a)
        case (nil, let b?): return orderable.contains(b)
        case (let a?, let b?): return a == b && orderable.contains(a)
        }
    }

    /// Whether the evaluator reads the value as a number (`numericValue`): numbers, booleans
    /// and dates. Unknown kinds and NULL pass (they are checked when the query runs, or are NULL).
    package var isNumericOrUnknown: Bool {
        switch self {
        case .integer, .real, .boolean, .decimal, .number, .date, .null, .unknown: true
        default: false
        }
    }

    /// Whether the value may be a string (the string operators are false for anything else).
    package var mayBeString: Bool { self == .string || self == .unknown }

    /// The kind of a value that is one of two kinds (TERNARY, a list of items).
    package func union(_ other: SQLKind) -> SQLKind {
        if self == other || other == .null { return self }
        if self == .null { return other }
        if family == .number && other.family == .number { return .number }
        return .unknown
    }
}
