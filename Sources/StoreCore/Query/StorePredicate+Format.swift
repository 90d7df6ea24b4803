/// Parsing predicates from Core Data's format strings.
extension StorePredicate {
    /// Parses a predicate format string, substituting `arguments` for its `%` specifiers in order.
    ///
    /// `%@` takes any ``StoreValueConvertible`` value, `nil`, a ``ManagedObject`` (compared by
    /// object ID) or an array or set of those (an aggregate, as for `IN` and `BETWEEN`); `%K` a
    /// key path string; `%d`, `%i`, `%ld` integers; `%f`, `%lf` numbers; `%s` strings. `$NAME`
    /// variables stay in the tree until ``substituting(variables:)``.
    ///
    /// For example:
    ///
    /// ```swift
    /// let p = try StorePredicate(format: "text CONTAINS[c] %@ AND timestamp > %@", "swift", since)
    /// let q = try StorePredicate(format: "%K BETWEEN %@", "latitude", [30.0, 40.0])
    /// ```
    ///
    /// - Throws: ``PredicateSyntaxError`` saying what was expected and where, when the string does
    ///   not parse or the arguments do not match its specifiers in number or kind.
    public init(format: String, _ arguments: Any...) throws(PredicateSyntaxError) {
        self = try PredicateParser.parsePredicate(format, arguments: arguments)
    }

    /// Parses a predicate format string with its arguments in an array.
    public init(format: String, argumentArray arguments: [Any]) throws(PredicateSyntaxError) {
        self = try PredicateParser.parsePredicate(format, arguments: arguments)
    }

    /// Parses a predicate format string: `request.predicate = try .format("magnitude > %@", 2.5)`.
    public static func format(_ format: String, _ arguments: Any...) throws(PredicateSyntaxError) -> StorePredicate {
        try PredicateParser.parsePredicate(format, arguments: arguments)
    }
}

extension StoreExpression {
    /// Parses an expression format string (`NSExpression(format:)`), e.g. `"views * 2"`,
    /// `"sum:(comments.likes)"`, `"now()"`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let total = try StoreExpression(format: "%K + %@", "views", 10)
    /// ```
    public init(format: String, _ arguments: Any...) throws(PredicateSyntaxError) {
        self = try PredicateParser.parseExpression(format, arguments: arguments)
    }
}

/// A predicate written as a string literal: `request.predicate = "magnitude > 2.5"`.
///
/// A literal cannot throw, so a literal that does not parse becomes a predicate that fails
/// every evaluation with a ``FetchError`` of code `FetchError.Code.invalidPredicate` carrying the
/// syntax error — the fetch that uses it throws. Use ``init(format:_:)`` to catch the error
/// where the string is written.
extension StorePredicate: ExpressibleByStringLiteral {
    /// The function name of the sentinel expression a literal that does not parse becomes.
    package static let syntaxErrorFunction = "syntaxError:"

    /// Parses the literal as a predicate format string with no arguments; one that does not parse becomes
    /// a predicate whose evaluation throws `invalidPredicate` with the syntax error.
    public init(stringLiteral format: String) {
        do {
            self = try PredicateParser.parsePredicate(format, arguments: [])
        } catch {
            self = .comparison(StoreComparison(
                .function(Self.syntaxErrorFunction, [.constant(.string(error.description))]), .equalTo, .constant(.boolean(true))))
        }
    }

    /// The error every store throws for the sentinel a literal that does not parse became: its
    /// function's arguments hold the syntax error.
    package static func literalSyntaxFailure(_ arguments: [StoreExpression]) -> FetchError {
        let message = arguments.first.flatMap { if case .constant(.string(let text)) = $0 { text } else { nil } } ?? "syntax error"
        return FetchError(.invalidPredicate, "the predicate string literal does not parse: \(message)")
    }

    /// The syntax error of a predicate made from a string literal that does not parse, if it is one.
    public var literalSyntaxError: String? {
        guard case .comparison(let c) = self, case .function(Self.syntaxErrorFunction, let args) = c.left,
            case .constant(.string(let message))? = args.first
        else { return nil }
        return message
    }
}
