/// Comparison operators and string/collection tests on ``StoreTerm``, each making a ``StorePredicate``.
extension StoreTerm {
    /// `term == value`: compares the term with a constant (`.key("views") == 10`).
    public static func == (lhs: StoreTerm, rhs: some StoreValueConvertible) -> StorePredicate { lhs.compare(.equalTo, .constant(rhs.storeValue)) }
    /// `term != value`: compares the term with a constant (`.key("views") != 10`).
    public static func != (lhs: StoreTerm, rhs: some StoreValueConvertible) -> StorePredicate { lhs.compare(.notEqualTo, .constant(rhs.storeValue)) }
    /// `term < value`: compares the term with a constant (`.key("views") < 10`).
    public static func < (lhs: StoreTerm, rhs: some StoreValueConvertible) -> StorePredicate { lhs.compare(.lessThan, .constant(rhs.storeValue)) }
    /// `term <= value`: compares the term with a constant (`.key("views") <= 10`).
    public static func <= (lhs: StoreTerm, rhs: some StoreValueConvertible) -> StorePredicate { lhs.compare(.lessThanOrEqualTo, .constant(rhs.storeValue)) }
    /// `term > value`: compares the term with a constant (`.key("views") > 10`).
    public static func > (lhs: StoreTerm, rhs: some StoreValueConvertible) -> StorePredicate { lhs.compare(.greaterThan, .constant(rhs.storeValue)) }
    /// `term >= value`: compares the term with a constant (`.key("views") >= 10`).
    public static func >= (lhs: StoreTerm, rhs: some StoreValueConvertible) -> StorePredicate { lhs.compare(.greaterThanOrEqualTo, .constant(rhs.storeValue)) }

    /// `term == term`: compares two expressions, such as two key paths.
    public static func == (lhs: StoreTerm, rhs: StoreTerm) -> StorePredicate { lhs.compare(.equalTo, rhs.expression) }
    /// `term != term`: compares two expressions, such as two key paths.
    public static func != (lhs: StoreTerm, rhs: StoreTerm) -> StorePredicate { lhs.compare(.notEqualTo, rhs.expression) }
    /// `term < term`: compares two expressions, such as two key paths.
    public static func < (lhs: StoreTerm, rhs: StoreTerm) -> StorePredicate { lhs.compare(.lessThan, rhs.expression) }
    /// `term <= term`: compares two expressions, such as two key paths.
    public static func <= (lhs: StoreTerm, rhs: StoreTerm) -> StorePredicate { lhs.compare(.lessThanOrEqualTo, rhs.expression) }
    /// `term > term`: compares two expressions, such as two key paths.
    public static func > (lhs: StoreTerm, rhs: StoreTerm) -> StorePredicate { lhs.compare(.greaterThan, rhs.expression) }
    /// `term >= term`: compares two expressions, such as two key paths.
    public static func >= (lhs: StoreTerm, rhs: StoreTerm) -> StorePredicate { lhs.compare(.greaterThanOrEqualTo, rhs.expression) }

    /// `term == NULL`.
    public var isNil: StorePredicate { compare(.equalTo, .constant(.null)) }
    /// `term != NULL`.
    public var isNotNil: StorePredicate { compare(.notEqualTo, .constant(.null)) }

    /// `BEGINSWITH`, with `[c]` / `[d]` when asked.
    public func beginsWith(_ prefix: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) -> StorePredicate {
        compare(.beginsWith, .constant(.string(prefix)), Self.options(caseInsensitive, diacriticInsensitive))
    }
    /// `ENDSWITH`.
    public func endsWith(_ suffix: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) -> StorePredicate {
        compare(.endsWith, .constant(.string(suffix)), Self.options(caseInsensitive, diacriticInsensitive))
    }
    /// `CONTAINS` a substring (for a to-many collection use ``containsValue(_:)``).
    public func contains(_ text: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) -> StorePredicate {
        compare(.contains, .constant(.string(text)), Self.options(caseInsensitive, diacriticInsensitive))
    }
    /// `CONTAINS` an element: `.key("tags.name").containsValue("swift")`.
    public func containsValue(_ value: some StoreValueConvertible) -> StorePredicate {
        compare(.contains, .constant(value.storeValue))
    }
    /// `LIKE` a pattern with `*` and `?` wildcards.
    public func like(_ pattern: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) -> StorePredicate {
        compare(.like, .constant(.string(pattern)), Self.options(caseInsensitive, diacriticInsensitive))
    }
    /// `MATCHES` a regular expression (the whole string must match).
    public func matches(_ regularExpression: String, caseInsensitive: Bool = false) -> StorePredicate {
        compare(.matches, .constant(.string(regularExpression)), Self.options(caseInsensitive, false))
    }
    /// `IN` a list of values.
    public func isIn<S: Sequence>(_ values: S) -> StorePredicate where S.Element: StoreValueConvertible {
        compare(.in, .aggregate(values.map { .constant($0.storeValue) }))
    }
    /// `BETWEEN {lower, upper}`, bounds included.
    public func between(_ lower: some StoreValueConvertible, _ upper: some StoreValueConvertible) -> StorePredicate {
        compare(.between, .aggregate([.constant(lower.storeValue), .constant(upper.storeValue)]))
    }

    private static func options(_ caseInsensitive: Bool, _ diacriticInsensitive: Bool) -> StoreComparison.Options {
        var options: StoreComparison.Options = []
        if caseInsensitive { options.insert(.caseInsensitive) }
        if diacriticInsensitive { options.insert(.diacriticInsensitive) }
        return options
    }
}

/// Arithmetic on terms, as Core Data's `add:to:`, `from:subtract:`, `multiply:by:`, `divide:by:`.
extension StoreTerm {
    /// `lhs + rhs`, Core Data's `add:to:` function.
    public static func + (lhs: StoreTerm, rhs: StoreTerm) -> StoreTerm { StoreTerm(.function("add:to:", [lhs.expression, rhs.expression])) }
    /// `lhs - rhs`, Core Data's `from:subtract:` function.
    public static func - (lhs: StoreTerm, rhs: StoreTerm) -> StoreTerm { StoreTerm(.function("from:subtract:", [lhs.expression, rhs.expression])) }
    /// `lhs * rhs`, Core Data's `multiply:by:` function.
    public static func * (lhs: StoreTerm, rhs: StoreTerm) -> StoreTerm { StoreTerm(.function("multiply:by:", [lhs.expression, rhs.expression])) }
    /// `lhs / rhs`, Core Data's `divide:by:` function.
    public static func / (lhs: StoreTerm, rhs: StoreTerm) -> StoreTerm { StoreTerm(.function("divide:by:", [lhs.expression, rhs.expression])) }
    /// `term + value`, Core Data's `add:to:` with a constant.
    public static func + (lhs: StoreTerm, rhs: some StoreValueConvertible) -> StoreTerm { lhs + .value(rhs) }
    /// `term - value`, Core Data's `from:subtract:` with a constant.
    public static func - (lhs: StoreTerm, rhs: some StoreValueConvertible) -> StoreTerm { lhs - .value(rhs) }
    /// `term * value`, Core Data's `multiply:by:` with a constant.
    public static func * (lhs: StoreTerm, rhs: some StoreValueConvertible) -> StoreTerm { lhs * .value(rhs) }
    /// `term / value`, Core Data's `divide:by:` with a constant.
    public static func / (lhs: StoreTerm, rhs: some StoreValueConvertible) -> StoreTerm { lhs / .value(rhs) }
    /// `-term`: a negated number constant, or the term multiplied by -1 (`multiply:by:`).
    public static prefix func - (operand: StoreTerm) -> StoreTerm { StoreTerm(PredicateParser.negated(operand.expression)) }
}
