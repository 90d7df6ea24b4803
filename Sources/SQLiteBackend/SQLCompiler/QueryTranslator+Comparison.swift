import StoreCore

/// Comparisons with the evaluator's semantics (see `ValueComparison`): NULL equals only NULL
/// (`x != 5` holds for NULL, so it compiles to `IS NOT`), NULL orders before nothing, values of
/// kinds the evaluator never compares are unequal and unordered, `[c]`/`[d]` fold both sides
/// with `stowage_fold` (constants are folded here), and the string operators use
/// `instr`/`substr` — never LIKE, whose wildcards would make `%` and `_` in a value special.
///
/// For example, on `Quake`:
///
/// ```
/// magnitude == 5                  t0.ZMAGNITUDE = ?1
/// alert != nil                    t0.ZALERT IS NOT NULL
/// place BEGINSWITH[c] 'ridge'     substr(stowage_fold(t0.ZPLACE, 1), 1, 5) = ?1         ?1 = 'ridge'
/// depth == 'ten'                  0
/// region == %@ (a Region ID)      t0.ZREGION = ?1
/// %@ IN reports (a Report ID)     EXISTS (SELECT 1 FROM ZREPORT t1 WHERE t1.ZQUAKE = t0.Z_PK AND t1.Z_PK = ?1)
/// ```
extension QueryTranslator {
    func compare(
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

    // MARK: Equality

    /// `a == b` (or `a != b` when `negated`) as the evaluator's `equal`: lists element by
    /// element, objects by ID, values by value.
    func equal(
        _ a: QueryOperand, _ b: QueryOperand, _ options: StoreComparison.Options, negated: Bool = false
    ) throws -> SQLCondition {
        switch (a, b) {
        case (.list(let x), .list(let y)):
            guard x.count == y.count else { return .constant(negated) }
            let same = SQLCondition.all(try zip(x, y).map { try equal($0, $1, options) })
            return negated ? same.negated() : same
        case (.collection(let collection), .list(let items)), (.list(let items), .collection(let collection)):
            let same = try collectionEquals(collection, items, options)
            return negated ? same.negated() : same
        case (.collection, .collection):
            throw FetchError(.unsupported, "comparing two to-many collections with == or != does not compile to SQL")
        case (.collection(let collection), let other), (let other, .collection(let collection)):
            // A collection equals no single value; but reached through a NULL to-one it is NULL.
            guard let nullWhenNull = collection.nullWhenNull else { return .constant(negated) }
            let same = SQLCondition.all([SQLCondition(sql: "\(nullWhenNull) IS NULL", isTwoValued: true), isNull(other.scalar)])
            return negated ? same.negated() : same
        case (.list, _), (_, .list):
            return .constant(negated)
        case (.object(let x), .object(let y)):
            // Keys are unique in a table, so the same table and key are the same object.
            if try schema.table(for: x.entity.name).table == schema.table(for: y.entity.name).table {
                return SQLCondition(sql: "\(x.key) \(negated ? "IS NOT" : "IS") \(y.key)", isTwoValued: true)
            }
            let bothNull = SQLCondition.all([isNull(x.scalarValue), isNull(y.scalarValue)])
            return negated ? bothNull.negated() : bothNull
        case (.object(let object), .scalar(let value)), (.scalar(let value), .object(let object)):
            return try self.object(object, equals: value, negated: negated)
        case (.scalar(let x), .scalar(let y)):
            return try scalar(x, equals: y, options, negated: negated)
        }
    }

    /// `value IS NULL` (or `IS NOT NULL`), simplified for constants and values that cannot be NULL.
    func isNull(_ value: SQLScalar, negated: Bool = false) -> SQLCondition {
        if let constant = value.constant { return .constant(constant.isNull != negated) }
        if !value.nullable { return .constant(negated) }
        return SQLCondition(sql: "\(value.sql) \(negated ? "IS NOT NULL" : "IS NULL")", isTwoValued: true)
    }

    private func scalar(_ x: SQLScalar, equals y: SQLScalar, _ options: StoreComparison.Options, negated: Bool) throws -> SQLCondition {
        if let a = x.constant, let b = y.constant {
            return try folded(StoreComparison(.constant(a), negated ? .notEqualTo : .equalTo, .constant(b), options: options))
        }
        if x.isNullConstant || y.isNullConstant { return isNull(x.isNullConstant ? y : x, negated: negated) }
        if x.isNaN || y.isNaN { return .constant(negated) }
        guard x.kind.canEqual(y.kind) else {
            // Values of these kinds are never equal; two NULLs are.
            let bothNull = SQLCondition.all([isNull(x), isNull(y)])
            return negated ? bothNull.negated() : bothNull
        }
        let (l, r) = try foldedForComparison(x, y, options)
        if l.constant != nil || r.constant != nil {
            let (value, constant) = r.constant != nil ? (l, r) : (r, l)
            if negated { return SQLCondition(sql: "\(value.sql) IS NOT \(constant.sql)", isTwoValued: true) }
            return SQLCondition(sql: "\(value.sql) = \(constant.sql)", isTwoValued: !value.nullable)
        }
        return SQLCondition(sql: "\(l.sql) \(negated ? "IS NOT" : "IS") \(r.sql)", isTwoValued: true)
    }

    /// A collection equal to a list: in memory element by element in order, which SQL can only
    /// follow for lists of at most one element.
    private func collectionEquals(_ collection: RowCollection, _ items: [QueryOperand], _ options: StoreComparison.Options) throws -> SQLCondition {
        guard items.count <= 1 else {
            throw FetchError(.unsupported, "comparing a to-many collection with == to a list of \(items.count) values does not compile to SQL (the evaluator compares them element by element, in an order SQL does not keep)")
        }
        let count = try aggregate("count:", over: collection).scalar
        var parts = [SQLCondition(sql: "\(count.sql) = \(items.count)", isTwoValued: true)]
        if let item = items.first {
            parts.append(try exists(collection) { try self.equal($0, item, options) })
        }
        return .all(parts)
    }

    // MARK: Objects

    private func object(_ object: ObjectReference, equals value: SQLScalar, negated: Bool) throws -> SQLCondition {
        let same: SQLCondition
        switch value.constant {
        case .null?: return isNull(object.scalarValue, negated: negated)
        case .objectID(let id)?: same = try self.object(object, is: id)
        case _?: return .constant(negated)  // an object equals no other kind of value
        case nil:
            guard value.kind.family == .object || value.kind == .unknown || value.kind == .null else {
                same = .all([isNull(object.scalarValue), isNull(value)])
                break
            }
            return SQLCondition(sql: "\(object.key) \(negated ? "IS NOT" : "IS") \(value.sql)", isTwoValued: true)
        }
        return negated ? same.negated() : same
    }

    /// Whether the object is the one with `id`: its key, and — when rows of several entities
    /// share the table — its entity. An ID of an entity the object cannot be never matches.
    func object(_ object: ObjectReference, is id: ManagedObjectID) throws -> SQLCondition {
        guard let key = id.primaryKey, object.entity.entityAndDescendantNames.contains(id.entityName),
            let table = schema.tables[id.entityName]
        else { return .false }
        var parts = [SQLCondition(sql: "\(object.key) = \(bind(.integer(key)))", isTwoValued: !object.nullable)]
        if object.entity.entityAndDescendantNames.count > 1 {
            parts.append(SQLCondition(sql: "\(qualified(try alias(of: object), "Z_ENT")) = \(table.number)", isTwoValued: false))
        }
        return .all(parts)
    }

    // MARK: IN

    /// `left IN {items}`: `x IN (?1, ?2)` for constant lists, else one equality per item.
    func isIn(_ left: QueryOperand, _ items: [QueryOperand], _ options: StoreComparison.Options) throws -> SQLCondition {
        let constants = items.compactMap { item -> StoreValue? in
            if case .scalar(let value) = item { return value.constant }
            return nil
        }
        if constants.count == items.count && !items.isEmpty {
            switch left {
            case .scalar(let value) where value.constant == nil: return try scalar(value, isIn: constants, options)
            case .object(let object): return try self.object(object, isIn: constants)
            default: break
            }
        }
        return .any(try items.map { try equal($0, left, options) })
    }

    private func scalar(_ value: SQLScalar, isIn constants: [StoreValue], _ options: StoreComparison.Options) throws -> SQLCondition {
        let folding = options.intersection([.caseInsensitive, .diacriticInsensitive])
        let foldsStrings = !folding.isEmpty && value.kind.mayBeString
        var placeholders: [String] = []
        var matchesNull = false
        for item in constants {
            if item.isNull {
                matchesNull = true
                continue
            }
            guard !item.isNaN, value.kind.canEqual(SQLKind(item)) else { continue }
            var bound = item
            if foldsStrings, case .string(let text) = item { bound = .string(ValueComparison.fold(text, folding)) }
            let placeholder = constant(bound).sql
            if !placeholders.contains(placeholder) { placeholders.append(placeholder) }
        }
        var parts: [SQLCondition] = []
        if !placeholders.isEmpty {
            let subject = foldsStrings ? try fold(value, folding).sql : value.sql
            let test = placeholders.count == 1 ? "\(subject) = \(placeholders[0])" : "\(subject) IN (\(placeholders.joined(separator: ", ")))"
            parts.append(SQLCondition(sql: test, isTwoValued: !value.nullable))
        }
        if matchesNull { parts.append(isNull(value)) }
        return .any(parts)
    }

    private func object(_ object: ObjectReference, isIn constants: [StoreValue]) throws -> SQLCondition {
        var keysByEntity: [String: [Int64]] = [:]
        var matchesNull = false
        for item in constants {
            switch item {
            case .null: matchesNull = true
            case .objectID(let id):
                guard let key = id.primaryKey, object.entity.entityAndDescendantNames.contains(id.entityName) else { continue }
                keysByEntity[id.entityName, default: []].append(key)
            default: continue
            }
        }
        var parts: [SQLCondition] = []
        for entityName in keysByEntity.keys.sorted() {
            guard let keys = keysByEntity[entityName], let table = schema.tables[entityName] else { continue }
            let placeholders = keys.map { bind(.integer($0)) }
            var group = [SQLCondition(
                sql: placeholders.count == 1 ? "\(object.key) = \(placeholders[0])" : "\(object.key) IN (\(placeholders.joined(separator: ", ")))",
                isTwoValued: !object.nullable)]
            if object.entity.entityAndDescendantNames.count > 1 {
                group.append(SQLCondition(sql: "\(qualified(try alias(of: object), "Z_ENT")) = \(table.number)", isTwoValued: false))
            }
            parts.append(.all(group))
        }
        if matchesNull { parts.append(isNull(object.scalarValue)) }
        return .any(parts)
    }

    // MARK: Order

    /// `<`, `<=`, `>`, `>=`: false unless both values are non-NULL and of kinds with an order.
    func order(_ a: QueryOperand, _ op: StoreComparison.Operator, _ b: QueryOperand, _ options: StoreComparison.Options) throws -> SQLCondition {
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
    func stringTest(_ op: StoreComparison.Operator, _ a: QueryOperand, _ b: QueryOperand, _ options: StoreComparison.Options) throws -> SQLCondition {
        let x = a.scalar, y = b.scalar
        if x.isNullConstant || y.isNullConstant { return .false }
        guard x.kind.mayBeString, y.kind.mayBeString else { return .false }
        if let p = x.constant, let q = y.constant { return try folded(StoreComparison(.constant(p), op, .constant(q), options: options)) }
        var parts: [SQLCondition] = []
        for side in [x, y] where side.kind == .unknown {
            parts.append(SQLCondition(sql: "typeof(\(side.sql)) = 'text'", isTwoValued: true))
        }
        let flags = String(options.rawValue)
        switch op {
        case .like:
            parts.append(SQLCondition(sql: try stowageFunction(SQLFunctions.likeName, [x.sql, y.sql, flags]), isTwoValued: false))
            return .all(parts)
        case .matches:
            if case .string(let pattern)? = y.constant {
                // Checked now, so a bad pattern fails the fetch with the evaluator's error.
                _ = try RegularExpressionCache().matches("", pattern: pattern, options: options)
            }
            parts.append(SQLCondition(sql: try stowageFunction(SQLFunctions.matchesName, [x.sql, y.sql, flags]), isTwoValued: false))
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
            case .endsWith: parts.append(SQLCondition(sql: "substr(\(l.sql), -\(length)) = \(r.sql)", isTwoValued: false))
            default: parts.append(SQLCondition(sql: "instr(\(l.sql), \(r.sql)) > 0", isTwoValued: false))
            }
        } else {
            switch op {
            case .beginsWith:
                parts.append(SQLCondition(sql: "instr(\(l.sql), \(r.sql)) = 1", isTwoValued: false))
            case .endsWith:
                parts.append(SQLCondition(
                    sql: "(length(\(l.sql)) >= length(\(r.sql)) AND substr(\(l.sql), length(\(l.sql)) - length(\(r.sql)) + 1) = \(r.sql))",
                    isTwoValued: false))
            default:
                parts.append(SQLCondition(sql: "(instr(\(l.sql), \(r.sql)) > 0 AND length(\(r.sql)) > 0)", isTwoValued: false))
            }
        }
        return .all(parts)
    }

    // MARK: Folding

    /// Both sides with case and/or diacritics folded, when the options ask for it and both may be strings.
    func foldedForComparison(_ x: SQLScalar, _ y: SQLScalar, _ options: StoreComparison.Options) throws -> (SQLScalar, SQLScalar) {
        let folding = options.intersection([.caseInsensitive, .diacriticInsensitive])
        guard !folding.isEmpty, x.kind.mayBeString, y.kind.mayBeString else { return (x, y) }
        return (try fold(x, folding), try fold(y, folding))
    }

    func fold(_ value: SQLScalar, _ options: StoreComparison.Options) throws -> SQLScalar {
        if case .string(let text)? = value.constant { return constant(.string(ValueComparison.fold(text, options))) }
        var folded = value
        folded.sql = try stowageFunction(SQLFunctions.foldName, [value.sql, String(options.rawValue)])
        return folded
    }
}

extension SQLScalar {
    var isNaN: Bool {
        switch constant {
        case .double(let number)?: number.isNaN
        case .float(let number)?: number.isNaN
        default: false
        }
    }
}

extension StoreValue {
    var isNaN: Bool {
        switch self {
        case .double(let number): number.isNaN
        case .float(let number): number.isNaN
        default: false
        }
    }
}

extension ObjectReference {
    /// The object's key as a scalar of object kind.
    var scalarValue: SQLScalar { SQLScalar(sql: key, kind: .object(entity.name), nullable: nullable) }
}
