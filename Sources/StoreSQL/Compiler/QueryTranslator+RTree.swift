import StoreCore

/// `indexed:by:(x, "index")` on an R-tree index: the conjuncts of the fetch predicate that
/// compare an indexed property with constants (`BETWEEN {a, b}`, `<`, `<=`, `>`, `>=`, `==`)
/// become ONE lookup in the index's virtual table per index:
///
/// ```
/// indexed:by:(latitude, "byLocation") BETWEEN {18, 54} AND indexed:by:(longitude, "byLocation") BETWEEN {73, 135}
///
/// t0.Z_PK IN (SELECT Z_PK FROM "Z_Post_byLocation"
///             WHERE ZLATITUDE_MAX >= ?1 AND ZLATITUDE_MIN <= ?2 AND ZLONGITUDE_MAX >= ?3 AND ZLONGITUDE_MIN <= ?4)
/// AND t0.ZLATITUDE >= ?1 AND t0.ZLATITUDE <= ?2 AND t0.ZLONGITUDE >= ?3 AND t0.ZLONGITUDE <= ?4
/// ```
///
/// The lookup asks for boxes that overlap the range, and the comparisons stay, on the exact
/// column values: SQLite's R-tree keeps 32-bit floats rounded outwards, so a box is a slightly
/// larger interval than the value it holds. The lookup narrows the rows; the comparisons decide.
/// Elsewhere (under OR or NOT, on a binary index or none) `indexed:by:` is its plain value.
extension QueryTranslator {
    package func rTreeConditions(_ conjuncts: [StorePredicate], entity: EntityDescription, rootKey: String) throws -> [String] {
        guard schema.dialect.hasRTreeTables else { return [] }
        var bounds: [String: (index: RTreeIndex, terms: [String])] = [:]
        var order: [String] = []
        for case .comparison(let comparison) in conjuncts where comparison.modifier == .direct {
            guard let (index, column, op, value) = try rTreeComparison(comparison, entity: entity) else { continue }
            var terms: [String] = []
            let low = "\(column)_MIN", high = "\(column)_MAX"
            switch (op, value) {
            case (.between, .list(let pair)):
                terms = ["\(high) >= \(pair[0].scalar.sql)", "\(low) <= \(pair[1].scalar.sql)"]
            case (.greaterThan, .scalar(let a)): terms = ["\(high) > \(a.sql)"]
            case (.greaterThanOrEqualTo, .scalar(let a)): terms = ["\(high) >= \(a.sql)"]
            case (.lessThan, .scalar(let a)): terms = ["\(low) < \(a.sql)"]
            case (.lessThanOrEqualTo, .scalar(let a)): terms = ["\(low) <= \(a.sql)"]
            case (.equalTo, .scalar(let a)): terms = ["\(low) <= \(a.sql)", "\(high) >= \(a.sql)"]
            default: continue
            }
            if bounds[index.tableName] == nil {
                order.append(index.tableName)
                bounds[index.tableName] = (index, [])
            }
            bounds[index.tableName]?.terms += terms
        }
        return order.compactMap { name in
            guard let (_, terms) = bounds[name] else { return nil }
            let table = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            return "\(rootKey) IN (SELECT Z_PK FROM \(table) WHERE \(terms.joined(separator: " AND ")))"
        }
    }

    /// The index, column, operator (as if the indexed value were on the left) and constant
    /// operand of a comparison an R-tree can narrow, if it is one.
    private func rTreeComparison(
        _ comparison: StoreComparison, entity: EntityDescription
    ) throws -> (RTreeIndex, String, StoreComparison.Operator, QueryOperand)? {
        var op = comparison.operator
        var indexed = comparison.left, other = comparison.right
        if indexName(indexed) == nil {
            swap(&indexed, &other)
            switch op {
            case .lessThan: op = .greaterThan
            case .lessThanOrEqualTo: op = .greaterThanOrEqualTo
            case .greaterThan: op = .lessThan
            case .greaterThanOrEqualTo: op = .lessThanOrEqualTo
            case .equalTo: break
            default: return nil
            }
        }
        guard let (key, name) = indexName(indexed), isConstant(other), let index = rTreeIndex(named: name, for: entity),
            let position = index.properties.firstIndex(of: key)
        else { return nil }
        let value = try folded(other)
        switch value {
        case .scalar(let scalar) where Self.isNumber(scalar):
            return (index, index.columns[position], op, value)
        case .list(let pair) where op == .between && pair.count == 2 && pair.allSatisfy({ if case .scalar(let s) = $0 { Self.isNumber(s) } else { false } }):
            return (index, index.columns[position], op, value)
        default:
            return nil
        }
    }

    private func indexName(_ expression: StoreExpression) -> (key: String, index: String)? {
        guard case .function("indexed:by:", let arguments) = expression, arguments.count == 2,
            case .keyPath(let key) = arguments[0], !key.contains("."), case .constant(.string(let index)) = arguments[1]
        else { return nil }
        return (key, index)
    }

    /// The R-tree index of that name declared on the entity or an ancestor (whose index holds
    /// the entity's rows too).
    private func rTreeIndex(named name: String, for entity: EntityDescription) -> RTreeIndex? {
        var current: EntityDescription? = entity
        while let candidate = current {
            if let index = schema.rTreeIndexes[candidate.name]?[name] { return index }
            current = candidate.superentity
        }
        return nil
    }

    private static func isNumber(_ value: SQLScalar) -> Bool {
        guard let constant = value.constant, let number = constant.numericValue else { return false }
        if case .boolean = constant { return false }
        return !number.isNaN
    }
}
