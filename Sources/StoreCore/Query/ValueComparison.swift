import Foundation

/// Comparison of two store values with Core Data's rules: numbers of any kind compare by value,
/// NULL equals only NULL and orders before nothing, strings honour `[c]`, `[d]` and `[n]`.
package enum ValueComparison {
    package static func equal(_ a: StoreValue, _ b: StoreValue, _ options: StoreComparison.Options = []) -> Bool {
        if a.isNull || b.isNull { return a.isNull && b.isNull }
        if case .string(let x) = a, case .string(let y) = b { return fold(x, options) == fold(y, options) }
        if let x = a.numericValue, let y = b.numericValue, isNumeric(a), isNumeric(b) { return x == y }
        return a == b
    }

    /// The order of two values, or `nil` when they cannot be ordered (NULL, different kinds).
    package static func order(_ a: StoreValue, _ b: StoreValue, _ options: StoreComparison.Options = []) -> ComparisonResult? {
        switch (a, b) {
        case (.string(let x), .string(let y)):
            let fx = fold(x, options), fy = fold(y, options)
            return fx == fy ? .orderedSame : (fx < fy ? .orderedAscending : .orderedDescending)
        case (.date(let x), .date(let y)):
            return x == y ? .orderedSame : (x < y ? .orderedAscending : .orderedDescending)
        case (.integer(let x), .integer(let y)):
            return x == y ? .orderedSame : (x < y ? .orderedAscending : .orderedDescending)
        case (.decimal(let x), .decimal(let y)):
            return x == y ? .orderedSame : (x < y ? .orderedAscending : .orderedDescending)
        case (.uuid(let x), .uuid(let y)):
            return order(.string(x.uuidString), .string(y.uuidString))
        case (.data(let x), .data(let y)):
            return x == y ? .orderedSame : (x.lexicographicallyPrecedes(y) ? .orderedAscending : .orderedDescending)
        default:
            guard isNumeric(a), isNumeric(b), let x = a.numericValue, let y = b.numericValue, !x.isNaN, !y.isNaN else { return nil }
            return x == y ? .orderedSame : (x < y ? .orderedAscending : .orderedDescending)
        }
    }

    package static func compare(_ a: StoreValue, _ op: StoreComparison.Operator, _ b: StoreValue, _ options: StoreComparison.Options) -> Bool {
        switch op {
        case .equalTo: return equal(a, b, options)
        case .notEqualTo: return !equal(a, b, options)
        case .lessThan: return order(a, b, options) == .orderedAscending
        case .lessThanOrEqualTo: return [.orderedAscending, .orderedSame].contains(order(a, b, options))
        case .greaterThan: return order(a, b, options) == .orderedDescending
        case .greaterThanOrEqualTo: return [.orderedDescending, .orderedSame].contains(order(a, b, options))
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard case .string(let x) = a, case .string(let y) = b else { return false }
            let fx = fold(x, options), fy = fold(y, options)
            switch op {
            case .beginsWith: return fx.hasPrefix(fy)
            case .endsWith: return fx.hasSuffix(fy)
            case .contains: return substring(fy, isIn: fx)
            case .like: return LikePattern.matches(fx, fy)
            default: return false
            }
        case .in, .between:
            return false
        }
    }

    package static func contains(_ container: StoreValue, _ element: StoreValue, _ options: StoreComparison.Options) -> Bool {
        guard case .string(let x) = container, case .string(let y) = element else { return false }
        return substring(fold(y, options), isIn: fold(x, options))
    }

    /// Whether `text` contains `needle`, by Foundation's search (an empty needle is never
    /// contained) — except for a needle holding a NUL, which Foundation mishandles (it stops
    /// reading the needle there, and traps on some texts): that one is searched for character
    /// by character.
    static func substring(_ needle: String, isIn text: String) -> Bool {
        if needle.utf8.contains(0) { return text.firstRange(of: needle) != nil }
        return text.contains(needle)
    }

    private static func isNumeric(_ value: StoreValue) -> Bool {
        switch value {
        case .integer, .double, .float, .decimal, .boolean: true
        default: false
        }
    }

    package static func fold(_ string: String, _ options: StoreComparison.Options) -> String {
        var result = string
        if options.contains(.caseInsensitive) || options.contains(.diacriticInsensitive) {
            var foldOptions: String.CompareOptions = []
            if options.contains(.caseInsensitive) { foldOptions.insert(.caseInsensitive) }
            if options.contains(.diacriticInsensitive) { foldOptions.insert(.diacriticInsensitive) }
            result = result.folding(options: foldOptions, locale: nil)
        }
        return result
    }
}
