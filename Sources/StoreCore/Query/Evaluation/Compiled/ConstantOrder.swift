import Foundation

/// `ValueComparison.order(value, constant, options)` with the constant prepared once: numbers
/// compared as `Int64` or `Double` without going through ``StoreValue/numericValue`` for the
/// common kinds, strings folded once.
///
/// For example:
///
/// ```swift
/// let five = ConstantOrder(.integer(5), options: [])
/// five.order(of: .double(6.5))     // .orderedDescending
/// five.order(of: .string("6"))     // nil: a string and a number cannot be ordered
/// ```
struct ConstantOrder {
    private enum Kind {
        /// An integer: exact against integers, by `Double` against other numbers.
        case integer(Int64)
        /// A double, float or boolean that is not NaN.
        case number(Double)
        case date(Date)
        case string(PreparedString)
        /// Anything else, ordered by ``ValueComparison``.
        case other(StoreValue, StoreComparison.Options)
    }

    private let kind: Kind

    init(_ constant: StoreValue, options: StoreComparison.Options) {
        switch constant {
        case .integer(let v): kind = .integer(v)
        case .double(let v) where !v.isNaN: kind = .number(v)
        case .float(let v) where !v.isNaN: kind = .number(Double(v))
        case .boolean(let v): kind = .number(v ? 1 : 0)
        case .date(let v): kind = .date(v)
        case .string(let v): kind = .string(PreparedString(v, options: options))
        default: kind = .other(constant, options)
        }
    }

    /// The order of `value` relative to the constant, or `nil` when they cannot be ordered.
    @inline(__always)
    func order(of value: StoreValue) -> ComparisonResult? {
        switch kind {
        case .integer(let c):
            if case .integer(let x) = value { return Self.order(x, c) }
            return Self.numeric(value).flatMap { Self.order($0, Double(c)) }
        case .number(let c):
            return Self.numeric(value).flatMap { Self.order($0, c) }
        case .date(let c):
            guard case .date(let x) = value else { return nil }
            return x == c ? .orderedSame : (x < c ? .orderedAscending : .orderedDescending)
        case .string(let c):
            guard case .string(let x) = value else { return nil }
            return c.order(of: x)
        case .other(let c, let options):
            return ValueComparison.order(value, c, options)
        }
    }

    /// A numeric value as a `Double` (`nil` for NULL, dates, strings and other non-numbers).
    @inline(__always)
    static func numeric(_ value: StoreValue) -> Double? {
        switch value {
        case .double(let v): v
        case .integer(let v): Double(v)
        case .float(let v): Double(v)
        case .boolean(let v): v ? 1 : 0
        case .decimal: value.numericValue
        default: nil
        }
    }

    @inline(__always)
    private static func order<T: Comparable>(_ x: T, _ y: T) -> ComparisonResult {
        x == y ? .orderedSame : (x < y ? .orderedAscending : .orderedDescending)
    }

    /// Doubles in order; `nil` when either is NaN.
    @inline(__always)
    private static func order(_ x: Double, _ y: Double) -> ComparisonResult? {
        if x.isNaN || y.isNaN { return nil }
        return x == y ? .orderedSame : (x < y ? .orderedAscending : .orderedDescending)
    }
}
