import StoreCore

/// Comparisons with the evaluator's semantics (see `ValueComparison`): NULL orders before
/// nothing, values of kinds the evaluator never compares are unordered, `[c]`/`[d]` fold both
/// sides with `stowage_fold` (constants are folded here), and the string operators use
/// `instr`/`substr` — never LIKE, whose wildcards would make `%` and `_` in a value special.
/// Equality and IN are in `QueryTranslator+Equality.swift`.
///
/// For example, on `Quake`:
///
/// ```
/// magnitude > 5                   t0.ZMAGNITUDE > ?1
/// time < 5                        0                         (a date is not ordered against a number)
/// place BEGINSWITH[c] 'ridge'     substr(stowage_fold(t0.ZPLACE, 1), 1, 5) = ?1         ?1 = 'ridge'
/// place ENDSWITH code             (length(t0.ZPLACE) >= length(t0.ZCODE) AND substr(t0.ZPLACE, …) = t0.ZCODE)
/// place LIKE 'cal*'               stowage_like(t0.ZPLACE, ?1, 0)
/// ```
extension QueryTranslator {
    package func compare(
        _ left: QueryOperand, _ op: StoreComparison.Operator, _ right: QueryOperand, _ options: StoreComparison.Options
    ) throws -> SQLCondition {
        switch op {
        case .in:
            switch right {
            case .collection(let collection): return try exists(collection) { try self.equal($0, left, options) }
            case .list(let items): return try isIn(left, items, options)
            default: return try stringTest(.contains, right, left, options)
            }
        case .contains:
            switch left {
            case .collection(let collection): return try exists(collection) { try self.equal($0, right, options) }
            case .list(let items): return try isIn(right, items, options)
            default: return try stringTest(.contains, left, right, options)
            }
        case .between:
            guard case .list(let bounds) = right, bounds.count == 2 else {
                if case .collection = right {
                    throw FetchError(.unsupported, "BETWEEN takes two bounds {low, high}, not a to-many collection")
                }
                return .false
            }
            return .all([
                try order(left, .greaterThanOrEqualTo, bounds[0], options),
                try order(left, .lessThanOrEqualTo, bounds[1], options),
            ])
        case .equalTo:
            return try equal(left, right, options)
        case .notEqualTo:
            return try equal(left, right, options, negated: true)
        case .matches, .like, .beginsWith, .endsWith:
            return try stringTest(op, left, right, options)
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            return try order(left, op, right, options)
        }
    }

    // MARK: Order

    /// `<`, `<=`, `>`, `>=`: false unless both values are non-NULL and of kinds with an order.
    package func order(_ a: QueryOperand, _ op: StoreComparison.Operator, _ b: QueryOperand, _ options: StoreComparison.Options) throws -> SQLCondition {
        let x = a.scalar, y = b.scalar
        if let p = x.constant, let q = y.constant { return try folded(StoreComparison(.constant(p), op, .constant(q), options: options)) }
        if x.isNullConstant || y.isNullConstant || x.isNaN || y.isNaN { return .false }
        guard x.kind.canOrder(against: y.kind) else { return .false }
        let (l, r) = try foldedForComparison(x, y, options)
        return SQLCondition(sql: "\(l.sql) \(op.rawValue) \(r.sql)", isTwoValued: !l.nullable && !r.nullable)
    }

    // MARK: Strings

    /// BEGINSWITH, ENDSWITH, CONTAINS (of strings), LIKE and MATCHES: false unless both sides
    /// are strings.
    package func stringTest(_ op: StoreComparison.Operator, _ a: QueryOperand, _ b: QueryOperand, _ options: StoreComparison.Options) throws -> SQLCondition {
        let x = a.scalar, y = b.scalar
        if x.isNullConstant || y.isNullConstant { return .false }
        guard x.kind.mayBeString, y.kind.mayBeString else { return .false }
        if let p = x.constant, let q = y.constant { return try folded(StoreComparison(.constant(p), op, .constant(q), options: options)) }
        var parts: [SQLCondition] = []
        for side in [x, y] where side.kind == .unknown {
            parts.append(SQLCondition(sql: schema.dialect.isText(side.sql), isTwoValued: true))
        }
        let flags = String(options.rawValue)
        switch op {
        case .like:
            parts.append(SQLCondition(sql: try stowageFunction(schema.dialect.likeFunction, [x.sql, y.sql, flags]), isTwoValued: false))
            return .all(parts)
        case .matches:
            if case .string(let pattern)? = y.constant {
                // Checked now, so a bad pattern fails the fetch with the evaluator's error.
                _ = try RegularExpressionCache().matches("", pattern: pattern, options: options)
            }
            parts.append(SQLCondition(sql: try stowageFunction(schema.dialect.matchesFunction, [x.sql, y.sql, flags]), isTwoValued: false))
            return .all(parts)
        default:
            break
        }
        let (l, r) = try foldedForComparison(x, y, options)
        if case .string(let needle)? = r.constant {
            let length = needle.unicodeScalars.count
            if length == 0 {
                // Every string begins and ends with "", but (as in Foundation) contains no "".
                parts.append(op == .contains ? .false : SQLCondition(sql: "\(l.sql) IS NOT NULL", isTwoValued: true))
                return .all(parts)
            }
            switch op {
            case .beginsWith: parts.append(SQLCondition(sql: "substr(\(l.sql), 1, \(length)) = \(r.sql)", isTwoValued: false))
            case .endsWith: parts.append(SQLCondition(sql: "\(schema.dialect.suffix(of: l.sql, count: length)) = \(r.sql)", isTwoValued: false))
            default: parts.append(SQLCondition(sql: "\(schema.dialect.position(of: r.sql, in: l.sql)) > 0", isTwoValued: false))
            }
        } else {
            switch op {
            case .beginsWith:
                parts.append(SQLCondition(sql: "\(schema.dialect.position(of: r.sql, in: l.sql)) = 1", isTwoValued: false))
            case .endsWith:
                parts.append(SQLCondition(
                    sql: "(length(\(l.sql)) >= length(\(r.sql)) AND substr(\(l.sql), length(\(l.sql)) - length(\(r.sql)) + 1) = \(r.sql))",
                    isTwoValued: false))
            default:
                parts.append(SQLCondition(sql: "(\(schema.dialect.position(of: r.sql, in: l.sql)) > 0 AND length(\(r.sql)) > 0)", isTwoValued: false))
            }
        }
        return .all(parts)
    }

    // MARK: Folding

    /// Both sides with case and/or diacritics folded, when the options ask for it and both may be strings.
    package func foldedForComparison(_ x: SQLScalar, _ y: SQLScalar, _ options: StoreComparison.Options) throws -> (SQLScalar, SQLScalar) {
        let folding = options.intersection([.caseInsensitive, .diacriticInsensitive])
        guard !folding.isEmpty, x.kind.mayBeString, y.kind.mayBeString else { return (x, y) }
        return (try fold(x, folding), try fold(y, folding))
    }

    package func fold(_ value: SQLScalar, _ options: StoreComparison.Options) throws -> SQLScalar {
        if case .string(let text)? = value.constant { return constant(.string(ValueComparison.fold(text, options))) }
        var folded = value
        folded.sql = try stowageFunction(schema.dialect.foldFunction, [value.sql, String(options.rawValue)])
        return folded
    }
}

extension SQLScalar {
    package var isNaN: Bool {
        switch constant {
        case .double(let number)?: number.isNaN
        case .float(let number)?: number.isNaN
        default: false
        }
    }
}

extension StoreValue {
    package var isNaN: Bool {
        switch self {
        case .double(let number): number.isNaN
        case .float(let number): number.isNaN
        default: false
        }
    }
}

extension ObjectReference {
    /// The object's key as a scalar of object kind.
    package var scalarValue: SQLScalar { SQLScalar(sql: key, kind: .object(entity.name), nullable: nullable) }
}
