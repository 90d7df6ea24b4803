import StoreCore

/// Equality and IN with the evaluator's `equal`: NULL equals only NULL (so `!=` compiles to
/// `IS NOT`), values of kinds it never compares are unequal, lists compare element by element,
/// and objects by ID — an object ID constant compares to the key, with the entity checked where
/// several entities share a table.
///
/// For example, on `Quake`:
///
/// ```
/// magnitude != 5                  t0.ZMAGNITUDE IS NOT ?1
/// depth == 'ten'                  0
/// code IN {'a', nil}              (t0.ZCODE = ?1 OR t0.ZCODE IS NULL)
/// region == %@ (a Region ID)      t0.ZREGION = ?1
/// %@ IN reports (a Report ID)     EXISTS (SELECT 1 FROM ZREPORT t1 WHERE t1.ZQUAKE = t0.Z_PK AND t1.Z_PK = ?1)
/// ```
extension QueryTranslator {
    /// `a == b` (or `a != b` when `negated`) as the evaluator's `equal`: lists element by
    /// element, objects by ID, values by value.
    package func equal(
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
                return SQLCondition(sql: schema.dialect.isSame(x.key, y.key, negated: negated), isTwoValued: true)
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
    package func isNull(_ value: SQLScalar, negated: Bool = false) -> SQLCondition {
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
            if negated { return SQLCondition(sql: schema.dialect.isSame(value.sql, constant.sql, negated: true), isTwoValued: true) }
            return SQLCondition(sql: "\(value.sql) = \(constant.sql)", isTwoValued: !value.nullable)
        }
        return SQLCondition(sql: schema.dialect.isSame(l.sql, r.sql, negated: negated), isTwoValued: true)
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
            return SQLCondition(sql: schema.dialect.isSame(object.key, value.sql, negated: negated), isTwoValued: true)
        }
        return negated ? same.negated() : same
    }

    /// Whether the object is the one with `id`: its key, and — when rows of several entities
    /// share the table — its entity. An ID of an entity the object cannot be never matches.
    package func object(_ object: ObjectReference, is id: ManagedObjectID) throws -> SQLCondition {
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
    package func isIn(_ left: QueryOperand, _ items: [QueryOperand], _ options: StoreComparison.Options) throws -> SQLCondition {
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

    /// `value IN constants`, the constants bound as one list (``membership(_:_:)``).
    func scalar(_ value: SQLScalar, isIn constants: [StoreValue], _ options: StoreComparison.Options) throws -> SQLCondition {
        let folding = options.intersection([.caseInsensitive, .diacriticInsensitive])
        let foldsStrings = !folding.isEmpty && value.kind.mayBeString
        var members: [SQLValue] = []
        members.reserveCapacity(constants.count)
        // A short list drops repeated values (its SQL names each once); a long one, bound as one
        // list value where the dialect can (``membership(_:_:)``), keeps them: a value listed twice
        // matches the same rows, and a set of every value (a constraint check binds 100,000) cost
        // more than the list.
        let dropsRepeats = constants.count <= Self.longestListBoundByValue || inlinesConstants
        var seen = Set<SQLValue>()
        var matchesNull = false
        for item in constants {
            if item.isNull {
                matchesNull = true
                continue
            }
            guard !item.isNaN, value.kind.canEqual(SQLKind(item)) else { continue }
            var member = item
            if foldsStrings, case .string(let text) = item { member = .string(ValueComparison.fold(text, folding)) }
            let encoded = encodedConstant(member)
            if !dropsRepeats || seen.insert(encoded).inserted { members.append(encoded) }
        }
        var parts: [SQLCondition] = []
        if !members.isEmpty {
            let subject = foldsStrings ? try fold(value, folding).sql : value.sql
            parts.append(SQLCondition(sql: membership(subject, members), isTwoValued: !value.nullable))
        }
        if matchesNull { parts.append(isNull(value)) }
        return .any(parts)
    }

    private func object(_ object: ObjectReference, isIn constants: [StoreValue]) throws -> SQLCondition {
        var keysByEntity: [String: [Int64]] = [:]
        var seen: Set<ManagedObjectID> = []
        var matchesNull = false
        for item in constants {
            switch item {
            case .null: matchesNull = true
            case .objectID(let id):
                guard let key = id.primaryKey, object.entity.entityAndDescendantNames.contains(id.entityName) else { continue }
                if seen.insert(id).inserted { keysByEntity[id.entityName, default: []].append(key) }
            default: continue
            }
        }
        var parts: [SQLCondition] = []
        for entityName in keysByEntity.keys.sorted() {
            guard let keys = keysByEntity[entityName], let table = schema.tables[entityName] else { continue }
            var group = [SQLCondition(sql: membership(object.key, keys.map(SQLValue.integer)), isTwoValued: !object.nullable)]
            if object.entity.entityAndDescendantNames.count > 1 {
                group.append(SQLCondition(sql: "\(qualified(try alias(of: object), "Z_ENT")) = \(table.number)", isTwoValued: false))
            }
            parts.append(.all(group))
        }
        if matchesNull { parts.append(isNull(object.scalarValue)) }
        return .any(parts)
    }

    /// `value` among a long list of constants as a join (``SQLDialect/valueTable(_:)``): the
    /// table of the values, bound as one, to put before the rows' table, and the condition
    /// joining them — what ``scalar(_:isIn:_:)`` tests with `IN`, for the same values (kinds
    /// `value` cannot equal left out), rows matched by a value listed twice coming twice.
    /// `nil` for a short list, a null among the constants (`IS NULL` is no join), constants
    /// written inline, or a dialect without such tables.
    func joinedList(_ value: SQLScalar, _ constants: [StoreValue]) -> (table: String, condition: String)? {
        guard constants.count > Self.longestListBoundByValue, !inlinesConstants else { return nil }
        var members: [SQLValue] = []
        members.reserveCapacity(constants.count)
        for item in constants {
            if item.isNull { return nil }
            guard !item.isNaN, value.kind.canEqual(SQLKind(item)) else { continue }
            members.append(encodedConstant(item))
        }
        guard !members.isEmpty, let list = schema.dialect.valueTable(members) else { return nil }
        return ("\(list.table(bind(list.value))) AS q_values", "\(value.sql) = q_values.value")
    }

    /// `subject IN (?1, ?2…)` for constant values — or, for a long list, the values bound as one
    /// (``SQLDialect/valueList(_:)``: `subject IN (SELECT value FROM json_each(?1))` with a JSON
    /// array in SQLite, `subject IN (SELECT unnest($1::TEXT[]))` with an array in PostgreSQL), so that any number
    /// of them fits in one statement and one parameter (SQLite allows at most 32766 parameters,
    /// PostgreSQL 65535).
    package func membership(_ subject: String, _ members: [SQLValue]) -> String {
        if members.count == 1 { return "\(subject) = \(bind(members[0]))" }
        if members.count > Self.longestListBoundByValue, !inlinesConstants, let list = schema.dialect.valueList(members) {
            return "\(subject) \(list.isAmong(bind(list.value)))"
        }
        return "\(subject) IN (\(members.map(bind).joined(separator: ", ")))"
    }

    /// The longest `IN` list bound value by value (``membership(_:_:)``); ``QueryShape`` caches
    /// the SQL of lists no longer than this.
    static let longestListBoundByValue = 100

    /// The values as a JSON array, if they all have a JSON form (no blobs, no infinities).
    /// Written as UTF-8 bytes and made a string once: appending to a string piece by piece cost
    /// more than the values' own work in a constraint check's list of 100,000.
    package static func jsonArray(_ values: [SQLValue]) -> String? {
        var json: [UInt8] = [UInt8(ascii: "[")]
        // Room for the common case, short text or numbers, so that the bytes grow seldom.
        json.reserveCapacity(values.count * 12 + 2)
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        for (index, value) in values.enumerated() {
            if index > 0 { json.append(UInt8(ascii: ",")) }
            switch value {
            case .null: json.append(contentsOf: "null".utf8)
            case .integer(let number): json.append(contentsOf: String(number).utf8)
            case .real(let number):
                guard number.isFinite else { return nil }
                json.append(contentsOf: String(number).utf8)
            case .text(let text):
                json.append(quote)
                // Most text needs no escape: then it goes in whole, not scalar by scalar.
                if !text.utf8.contains(where: { $0 < 0x20 || $0 == quote || $0 == backslash }) {
                    json.append(contentsOf: text.utf8)
                } else {
                    var escaped = ""
                    for scalar in text.unicodeScalars {
                        switch scalar {
                        case "\"": escaped += "\\\""
                        case "\\": escaped += "\\\\"
                        case _ where scalar.value < 0x20: escaped += String(format: "\\u%04X", scalar.value)
                        default: escaped.unicodeScalars.append(scalar)
                        }
                    }
                    json.append(contentsOf: escaped.utf8)
                }
                json.append(quote)
            case .blob: return nil
            }
        }
        json.append(UInt8(ascii: "]"))
        return String(decoding: json, as: UTF8.self)
    }
}
