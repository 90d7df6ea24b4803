import StoreCore

/// Predicates: AND, OR, NOT and comparisons with their `ANY`/`ALL` modifiers.
///
/// For example, on `Quake`:
///
/// ```
/// NOT magnitude > 5           (t0.ZMAGNITUDE > ?1) IS NOT 1
/// ANY reports.rating > 4      EXISTS (SELECT 1 FROM ZREPORT t1 WHERE t1.ZQUAKE = t0.Z_PK AND t1.ZRATING > ?1)
/// ALL reports.rating >= 2     NOT EXISTS (SELECT 1 FROM ZREPORT t1 WHERE t1.ZQUAKE = t0.Z_PK AND (t1.ZRATING >= ?1) IS NOT 1)
/// ```
extension QueryTranslator {
    package func condition(_ predicate: StorePredicate, _ scope: QueryScope) throws -> SQLCondition {
        switch predicate {
        case .constant(let value): return .constant(value)
        case .and(let parts): return .all(try parts.map { try condition($0, scope) })
        case .or(let parts): return .any(try parts.map { try condition($0, scope) })
        case .not(let inner): return try condition(inner, scope).negated()
        case .comparison(let comparison): return try condition(comparison, scope)
        }
    }

    package func condition(_ comparison: StoreComparison, _ scope: QueryScope) throws -> SQLCondition {
        if isConstant(comparison.left) && isConstant(comparison.right) { return try folded(comparison) }
        let left = try operand(comparison.left, scope)
        let op = comparison.operator, options = comparison.options
        // `attribute IN {constants}`: the constants go straight into the membership test, not
        // each bound as a parameter first (an import's uniqueness check asks for thousands).
        if op == .in, comparison.modifier == .direct, case .scalar(let value) = left, value.constant == nil,
            case .aggregate(let items) = comparison.right, !items.isEmpty
        {
            let constants = items.compactMap { item -> StoreValue? in
                if case .constant(let constant) = item { return constant }
                return nil
            }
            if constants.count == items.count { return try scalar(value, isIn: constants, options) }
        }
        let right = try operand(comparison.right, scope)
        switch comparison.modifier {
        case .direct:
            return try compare(left, op, right, options)
        case .any:
            switch left {
            case .collection(let collection):
                let some = try exists(collection) { try self.compare($0, op, right, options) }
                return try unlessNull(collection, some, otherwise: compare(.scalar(.null), op, right, options))
            case .list(let items): return .any(try items.map { try compare($0, op, right, options) })
            default: return try compare(left, op, right, options)
            }
        case .all:
            switch left {
            case .collection(let collection):
                let every = try everyElement(of: collection) { try self.compare($0, op, right, options) }
                return try unlessNull(collection, every, otherwise: compare(.scalar(.null), op, right, options))
            case .list(let items): return .all(try items.map { try compare($0, op, right, options) })
            default: return try compare(left, op, right, options)
            }
        }
    }

    /// A collection reached through a NULL to-one is NULL in memory, not empty: `ANY`/`ALL` then
    /// compare that NULL directly (`ALL region.quakes.depth > 5` is false for a quake without a
    /// region, where `ALL` over an empty collection would be true).
    private func unlessNull(_ collection: RowCollection, _ condition: SQLCondition, otherwise: SQLCondition) -> SQLCondition {
        guard let key = collection.nullWhenNull else { return condition }
        return .any([
            .all([SQLCondition(sql: "\(key) IS NOT NULL", isTwoValued: true), condition]),
            .all([SQLCondition(sql: "\(key) IS NULL", isTwoValued: true), otherwise]),
        ])
    }

    /// `EXISTS (SELECT 1 FROM … WHERE … AND <test of the element>)`.
    package func exists(_ collection: RowCollection, _ test: (QueryOperand) throws -> SQLCondition) throws -> SQLCondition {
        let condition = try test(collection.element)
        if condition.isFalse { return .false }
        return SQLCondition(sql: "EXISTS (\(collection.level.select("1", extra: [condition.sql])))", isTwoValued: true)
    }

    /// `NOT EXISTS (SELECT 1 FROM … WHERE … AND (<test of the element>) IS NOT 1)`: true for an
    /// empty collection, as `ALL` is in memory.
    package func everyElement(of collection: RowCollection, _ test: (QueryOperand) throws -> SQLCondition) throws -> SQLCondition {
        let failing = try test(collection.element).negated()
        if failing.isFalse { return .true }
        return SQLCondition(sql: "NOT EXISTS (\(collection.level.select("1", extra: [failing.sql])))", isTwoValued: true)
    }
}
