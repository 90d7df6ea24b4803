import StoreCore

/// Index subscripts (`objectFrom:withIndex:`) with the evaluator's rules (see
/// `PredicateEvaluator+Index.swift`): an ordered to-many by its position column, an unordered
/// one by key for `FIRST`/`LAST`, `SIZE` as a count, a list by position at compile time.
///
/// For example, on `Quake`:
///
/// ```
/// reports[SIZE]              (SELECT COUNT(*) FROM ZREPORT t1 WHERE t1.ZQUAKE = t0.Z_PK)
/// reports[FIRST].rating      t2.ZRATING  with  LEFT JOIN ZREPORT t2 ON t2.Z_PK =
///                              (SELECT t1.Z_PK FROM ZREPORT t1 WHERE t1.ZQUAKE = t0.Z_PK ORDER BY t1.Z_PK LIMIT 1)
/// region.highlights[1]       (SELECT t2.Z_PK FROM ZREPORT t2 WHERE t2.ZHIGHLIGHTOF = t0.ZREGION
///                              ORDER BY t2.Z_FOK_HIGHLIGHTOF, t2.Z_PK LIMIT 1 OFFSET 1)
/// ```
extension QueryTranslator {
    package func indexed(_ arguments: [StoreExpression], _ scope: QueryScope) throws -> QueryOperand {
        guard arguments.count == 2 else {
            throw FetchError(.invalidArgument, "\(StoreExpression.indexFunctionName) takes 2 argument(s), got \(arguments.count)")
        }
        let keyword = arguments[1].symbolicIndex
        let base = try operand(arguments[0], scope)
        switch base {
        case .list(let items):
            return try indexed(items, keyword, arguments[1], scope)
        case .collection(let rows):
            return try indexed(rows, keyword, arguments[1], scope)
        case .scalar(let value) where value.isNullConstant:
            return keyword == .size ? .scalar(constant(.integer(0))) : .scalar(.null)
        case .scalar, .object:
            throw FetchError(.invalidArgument, "\(arguments[0]) is not a collection, so it cannot be indexed")
        }
    }

    /// The index as a scalar: NULL, or an integer (or a value of unknown kind).
    private func integerIndex(_ index: StoreExpression, _ scope: QueryScope) throws -> SQLScalar {
        let value = try operand(index, scope)
        guard !value.isCollection else {
            throw FetchError(.invalidArgument, "the index \(index) must be an integer, FIRST, LAST or SIZE, not a collection")
        }
        let scalar = value.scalar
        switch scalar.kind {
        case .integer, .unknown, .number, .null: return scalar
        default: throw FetchError(.invalidArgument, "the index \(index) must be an integer, FIRST, LAST or SIZE, not \(scalar.kind) values")
        }
    }

    /// A list (`{a, b}` of values known when the query runs): by position, at compile time.
    private func indexed(_ items: [QueryOperand], _ keyword: StoreExpression.IndexKeyword?, _ index: StoreExpression, _ scope: QueryScope) throws -> QueryOperand {
        switch keyword {
        case .size: return .scalar(constant(.integer(Int64(items.count))))
        case .first: return items.first ?? .scalar(.null)
        case .last: return items.last ?? .scalar(.null)
        case nil: break
        }
        let position = try integerIndex(index, scope)
        if position.isNullConstant { return .scalar(.null) }
        if case .integer(let n)? = position.constant {
            return n >= 0 && n < Int64(items.count) ? items[Int(n)] : .scalar(.null)
        }
        let values = try items.map { item -> SQLScalar in
            guard case .scalar(let value) = item else {
                throw FetchError(.unsupported, "an index known only when the query runs, into a list of objects or collections, does not compile to SQL")
            }
            return value
        }
        if values.isEmpty { return .scalar(.null) }
        let cases = values.enumerated().map { "WHEN \($0.offset) THEN \($0.element.sql)" }.joined(separator: " ")
        let kind = values.reduce(SQLKind.null) { $0.union($1.kind) }
        return .scalar(SQLScalar(sql: "(CASE \(position.sql) \(cases) END)", kind: kind, nullable: true))
    }

    /// A collection of rows: `SIZE` counts them, the others pick one row by the rows' order.
    private func indexed(_ rows: RowCollection, _ keyword: StoreExpression.IndexKeyword?, _ index: StoreExpression, _ scope: QueryScope) throws -> QueryOperand {
        if keyword == .size { return try aggregate("count:", over: rows) }
        try requireBindable("an index subscript of a collection")
        let orderBy: String
        switch rows.order {
        case .none(let error):
            throw error
        case .key(let key):
            guard keyword != nil else {
                throw FetchError(.invalidArgument, "an unordered to-many relationship has no element [\(index)]: it needs an ordered one (FIRST, LAST and SIZE work on both)")
            }
            orderBy = key
        case .position(let position):
            orderBy = position
        }
        let element = rows.element.scalar
        let sql: String
        switch keyword {
        case .first?, .last?:
            let direction = keyword == .first ? "" : " DESC"
            let columns = orderBy.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) + direction }
            sql = "(\(rows.level.select(element.sql)) ORDER BY \(columns.joined(separator: ", ")) LIMIT 1)"
        default:
            let position = try integerIndex(index, scope)
            if position.isNullConstant { return .scalar(.null) }
            if case .integer(let n)? = position.constant {
                if n < 0 { return .scalar(.null) }
                sql = "(\(rows.level.select(element.sql)) ORDER BY \(orderBy) LIMIT 1 OFFSET \(n))"
            } else {
                let numbered = rows.level.select("\(element.sql) AS v, ROW_NUMBER() OVER (ORDER BY \(orderBy)) - 1 AS i")
                sql = "(SELECT v FROM (\(numbered)) AS q_numbered WHERE i = \(position.sql))"
            }
        }
        switch rows.element {
        case .object(let object):
            guard case .object(let subject) = scope.subject else {
                throw FetchError(.unsupported, "an index subscript giving an object inside a SUBQUERY over values does not compile to SQL")
            }
            return .object(ObjectReference(key: sql, alias: nil, entity: object.entity, level: subject.level, nullable: true))
        default:
            return .scalar(SQLScalar(sql: sql, kind: element.kind, nullable: true, attributeType: element.attributeType))
        }
    }
}
