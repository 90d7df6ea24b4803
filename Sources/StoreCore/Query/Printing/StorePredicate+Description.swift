/// Predicates print as their canonical format string: parsing the description gives the same tree.
///
/// For example:
///
/// ```swift
/// let p = try StorePredicate(format: "magnitude > %@ and place beginswith[c] 'Cal'", 2.5)
/// print(p)   // magnitude > 2.5 AND place BEGINSWITH[c] "Cal"
/// ```
extension StorePredicate: CustomStringConvertible {
    public var description: String {
        switch self {
        case .constant(let value):
            return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .comparison(let comparison):
            return comparison.description
        case .and(let parts):
            // An empty AND is true and an empty OR false, as in Core Data; a one-part compound
            // prints as its part (the only trees that do not print back exactly).
            if parts.isEmpty { return "TRUEPREDICATE" }
            return parts.map(\.operandDescription).joined(separator: " AND ")
        case .or(let parts):
            if parts.isEmpty { return "FALSEPREDICATE" }
            return parts.map(\.operandDescription).joined(separator: " OR ")
        case .not(let inner):
            return "NOT " + inner.operandDescription
        }
    }

    /// The description, parenthesized when it is a compound that would otherwise merge.
    var operandDescription: String {
        switch self {
        case .and(let parts) where parts.count > 1, .or(let parts) where parts.count > 1: "(\(description))"
        default: description
        }
    }
}

extension StoreComparison: CustomStringConvertible {
    public var description: String {
        let prefix: String
        switch modifier {
        case .direct: prefix = ""
        case .any: prefix = "ANY "
        case .all: prefix = "ALL "
        }
        return "\(prefix)\(left) \(`operator`.rawValue)\(optionsDescription) \(right)"
    }

    private var optionsDescription: String {
        var letters = ""
        if options.contains(.caseInsensitive) { letters += "c" }
        if options.contains(.diacriticInsensitive) { letters += "d" }
        if options.contains(.normalized) { letters += "n" }
        return letters.isEmpty ? "" : "[\(letters)]"
    }
}
