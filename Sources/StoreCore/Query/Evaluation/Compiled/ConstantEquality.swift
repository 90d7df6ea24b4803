/// `ValueComparison.equal(value, constant, options)` with the constant prepared once.
///
/// For example:
///
/// ```swift
/// let five = ConstantEquality(.integer(5), options: [])
/// five.matches(.double(5.0))        // true: numbers of any kind compare by value
/// ConstantEquality("ada", options: .caseInsensitive).matches(.string("ADA"))   // true
/// ```
struct ConstantEquality {
    private enum Kind {
        case null
        /// Any numeric constant, by its `Double` value.
        case number(Double)
        case string(PreparedString)
        /// Anything else (dates, data, IDs…), equal only to the same value.
        case other(StoreValue)
    }

    private let kind: Kind

    init(_ constant: StoreValue, options: StoreComparison.Options) {
        switch constant {
        case .null: kind = .null
        case .string(let v): kind = .string(PreparedString(v, options: options))
        case .integer, .double, .float, .decimal, .boolean: kind = .number(ConstantOrder.numeric(constant) ?? .nan)
        default: kind = .other(constant)
        }
    }

    @inline(__always)
    func matches(_ value: StoreValue) -> Bool {
        switch kind {
        case .null:
            return value.isNull
        case .number(let c):
            return ConstantOrder.numeric(value).map { $0 == c } ?? false
        case .string(let c):
            guard case .string(let x) = value else { return false }
            return c.equals(x)
        case .other(let c):
            return value == c
        }
    }
}

/// A value as `IN` compares it with the members of a constant list: numbers by `Double` value,
/// strings folded, NULL equal to NULL, anything else by itself — so that a set of keys gives
/// the answers of ``ValueComparison/equal(_:_:_:)`` member by member.
enum EqualityKey: Hashable {
    case null
    case number(Double)
    case string(String)
    case other(StoreValue)

    init(_ value: StoreValue, options: StoreComparison.Options) {
        switch value {
        case .null: self = .null
        case .string(let v): self = .string(PreparedString.fold(v, options))
        case .integer, .double, .float, .decimal, .boolean: self = .number(ConstantOrder.numeric(value) ?? .nan)
        default: self = .other(value)
        }
    }
}
