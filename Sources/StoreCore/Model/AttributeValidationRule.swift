import Foundation

/// A rule an attribute's value must satisfy when its object is saved (Core Data's
/// min/max value, min/max length and regular-expression constraints).
///
/// For example:
///
/// ```swift
/// .attribute("title", .string, rules: .length(1...200))
/// .attribute("magnitude", .double, rules: .range(0.0...10.0))
/// .attribute("code", .string, rules: [.pattern("[A-Z]{3}")])
/// ```
public enum AttributeValidationRule: Sendable, Hashable {
    /// The value must be at least this (numbers and dates).
    case minimum(StoreValue)
    /// The value must be at most this (numbers and dates).
    case maximum(StoreValue)
    /// Strings (in characters) and binary data (in bytes) must be at least this long.
    case minimumLength(Int)
    /// Strings (in characters) and binary data (in bytes) must be at most this long.
    case maximumLength(Int)
    /// The whole string must match this regular expression.
    case pattern(String)
}

extension [AttributeValidationRule] {
    /// Both a ``AttributeValidationRule/minimum(_:)`` and a ``AttributeValidationRule/maximum(_:)``.
    public static func range<T: StoreValueConvertible>(_ range: ClosedRange<T>) -> [AttributeValidationRule] {
        [.minimum(range.lowerBound.storeValue), .maximum(range.upperBound.storeValue)]
    }

    /// Both a ``AttributeValidationRule/minimumLength(_:)`` and a ``AttributeValidationRule/maximumLength(_:)``.
    public static func length(_ range: ClosedRange<Int>) -> [AttributeValidationRule] {
        [.minimumLength(range.lowerBound), .maximumLength(range.upperBound)]
    }
}
