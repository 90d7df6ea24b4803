/// Replacing `$NAME` variables with values, as Core Data's `withSubstitutionVariables(_:)`.
extension StorePredicate {
    /// The predicate with each `$NAME` whose name is in `variables` replaced by that value.
    ///
    /// Variables bound by a `SUBQUERY` inside are left alone; variables not in the dictionary
    /// stay, and a fetch with them fails with `FetchError.Code.unboundVariable`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let template = try StorePredicate(format: "views > $minimum AND author.name == $who")
    /// let p = template.substituting(variables: ["minimum": 10, "who": "Ada"])
    /// ```
    public func substituting(variables: [String: any StoreValueConvertible]) -> StorePredicate {
        substituting(expressions: variables.mapValues { StoreExpression.constant($0.storeValue) })
    }

    /// The predicate with variables replaced by expressions.
    public func substituting(expressions: [String: StoreExpression]) -> StorePredicate {
        guard !expressions.isEmpty else { return self }
        switch self {
        case .constant: return self
        case .comparison(var c):
            c.left = c.left.substituting(expressions: expressions)
            c.right = c.right.substituting(expressions: expressions)
            return .comparison(c)
        case .and(let parts): return .and(parts.map { $0.substituting(expressions: expressions) })
        case .or(let parts): return .or(parts.map { $0.substituting(expressions: expressions) })
        case .not(let inner): return .not(inner.substituting(expressions: expressions))
        }
    }

    /// The names of the `$variables` the predicate uses (not those bound by its subqueries).
    public var variableNames: Set<String> {
        switch self {
        case .constant: []
        case .comparison(let c): c.left.variableNames.union(c.right.variableNames)
        case .and(let parts), .or(let parts): parts.reduce(into: []) { $0.formUnion($1.variableNames) }
        case .not(let inner): inner.variableNames
        }
    }
}

extension StoreExpression {
    /// The expression with variables replaced by values.
    public func substituting(variables: [String: any StoreValueConvertible]) -> StoreExpression {
        substituting(expressions: variables.mapValues { StoreExpression.constant($0.storeValue) })
    }

    /// The expression with variables replaced by expressions.
    public func substituting(expressions: [String: StoreExpression]) -> StoreExpression {
        switch self {
        case .constant, .evaluatedObject, .keyPath: return self
        case .variable(let name): return expressions[name] ?? self
        case .member(let base, let path): return .member(base.substituting(expressions: expressions), path)
        case .aggregate(let items): return .aggregate(items.map { $0.substituting(expressions: expressions) })
        case .function(let name, let args): return .function(name, args.map { $0.substituting(expressions: expressions) })
        case .subquery(let collection, let variable, let predicate):
            var inner = expressions
            inner[variable] = nil
            return .subquery(
                collection: collection.substituting(expressions: expressions), variable: variable,
                predicate: predicate.substituting(expressions: inner))
        case .conditional(let predicate, let then, let otherwise):
            return .conditional(
                predicate.substituting(expressions: expressions), then.substituting(expressions: expressions),
                otherwise.substituting(expressions: expressions))
        }
    }

    /// The names of the `$variables` the expression uses (not those bound by its subqueries).
    public var variableNames: Set<String> {
        switch self {
        case .constant, .evaluatedObject, .keyPath: []
        case .variable(let name): [name]
        case .member(let base, _): base.variableNames
        case .aggregate(let items), .function(_, let items): items.reduce(into: []) { $0.formUnion($1.variableNames) }
        case .subquery(let collection, let variable, let predicate):
            collection.variableNames.union(predicate.variableNames.subtracting([variable]))
        case .conditional(let predicate, let then, let otherwise):
            predicate.variableNames.union(then.variableNames).union(otherwise.variableNames)
        }
    }
}
