import StoreCore

/// The having predicate: its key paths name result columns, which compile to their SQL
/// (per object without grouping, the aggregate with it).
extension DictionaryPlanner {
    /// The having predicate, its key paths naming result columns.
    package func havingCondition(_ predicate: StorePredicate, columns: [String: QueryOperand]) throws -> SQLCondition {
        var scope = QueryScope(subject: .scalar(.null))
        for (name, value) in columns { scope.variables[Self.columnVariable(name)] = value }
        let rewritten = try Self.namingColumns(predicate, columns: Set(columns.keys))
        return try translator.condition(rewritten, scope)
    }

    private static func columnVariable(_ name: String) -> String { "\u{1}column:" + name }

    private static func namingColumns(_ predicate: StorePredicate, columns: Set<String>) throws -> StorePredicate {
        switch predicate {
        case .constant: return predicate
        case .comparison(var comparison):
            comparison.left = try namingColumns(comparison.left, columns: columns)
            comparison.right = try namingColumns(comparison.right, columns: columns)
            return .comparison(comparison)
        case .and(let parts): return .and(try parts.map { try namingColumns($0, columns: columns) })
        case .or(let parts): return .or(try parts.map { try namingColumns($0, columns: columns) })
        case .not(let inner): return .not(try namingColumns(inner, columns: columns))
        }
    }

    private static func namingColumns(_ expression: StoreExpression, columns: Set<String>) throws -> StoreExpression {
        switch expression {
        case .constant, .evaluatedObject, .variable: return expression
        case .keyPath(let path):
            let parts = path.split(separator: ".", maxSplits: 1).map(String.init)
            guard let first = parts.first, columns.contains(first) else {
                throw FetchError(.invalidKeyPath, "the having predicate names '\(parts.first ?? path)', which is not a fetched column")
            }
            let column = StoreExpression.variable(columnVariable(first))
            return parts.count > 1 ? .member(column, parts[1]) : column
        case .member(let base, let path): return .member(try namingColumns(base, columns: columns), path)
        case .aggregate(let items): return .aggregate(try items.map { try namingColumns($0, columns: columns) })
        case .function(let name, let arguments): return .function(name, try arguments.map { try namingColumns($0, columns: columns) })
        case .subquery(let collection, let variable, let predicate):
            return .subquery(collection: try namingColumns(collection, columns: columns), variable: variable, predicate: predicate)
        case .conditional(let predicate, let then, let otherwise):
            return .conditional(
                try namingColumns(predicate, columns: columns), try namingColumns(then, columns: columns),
                try namingColumns(otherwise, columns: columns))
        }
    }
}
