import StoreCore

/// Collections: the collection operators of key paths (`@count`, `@sum`, `@avg`, `@min`,
/// `@max`, `@distinctUnionOfObjects`, `@unionOfObjects`) and the aggregate functions (`count:`,
/// `sum:`, `average:`, `min:`, `max:`, `median:`, `mode:`, `stddev:`) as correlated scalar
/// subqueries, with the evaluator's rules: NULL elements are skipped by every aggregate but a
/// count, an empty collection sums to 0 and has NULL average, minimum and maximum.
///
/// For example:
///
/// ```
/// reports.@count                 (SELECT COUNT(*) FROM ZREPORT t1 WHERE t1.ZQUAKE = t0.Z_PK)
/// reports.@sum.rating            (SELECT COALESCE(SUM(t1.ZRATING), 0) FROM ZREPORT t1 WHERE t1.ZQUAKE = t0.Z_PK)
/// sum:({depth, 5})               (SELECT COALESCE(SUM(d1.v), 0) FROM (SELECT t0.ZDEPTH AS v UNION ALL SELECT ?1 AS v) d1)
/// ```
extension QueryTranslator {
    package static let aggregateFunctionNames: Set<String> = ["count:", "sum:", "average:", "min:", "max:", "median:", "mode:", "stddev:"]

    /// `@operator` applied to `value`, after the rest of the key path is applied to each element.
    package func applyCollectionOperator(_ name: String, rest: ArraySlice<String>, to value: QueryOperand) throws -> QueryOperand {
        var collection = try rows(of: value)
        if !rest.isEmpty {
            if collection.distinct { collection = try materialized(collection) }
            let element = try follow(rest, from: collection.element, mapping: collection.level)
            guard !element.isCollection else {
                throw FetchError(.unsupported, "the collection operator \(name) over a key path that gives a collection per element (\(rest.joined(separator: "."))) does not compile to SQL")
            }
            collection.element = element
        }
        switch name {
        case "@count": return try aggregate("count:", over: collection)
        case "@sum": return try aggregate("sum:", over: collection)
        case "@avg": return try aggregate("average:", over: collection)
        case "@min": return try aggregate("min:", over: collection)
        case "@max": return try aggregate("max:", over: collection)
        case "@unionOfObjects", "@distinctUnionOfObjects":
            if case .scalar(let element) = collection.element, element.nullable {
                collection.level.restrict("\(element.sql) IS NOT NULL")
            }
            if name == "@distinctUnionOfObjects" { collection.distinct = true }
            if case .key = collection.order {
                collection.order = .none(FetchError(.invalidArgument, "the elements of a collection operator's result have no order"))
            }
            collection.nullWhenNull = nil
            return .collection(collection)
        default:
            throw FetchError(.invalidKeyPath, "unknown collection operator \(name); expected @count, @sum, @avg, @min, @max or @distinctUnionOfObjects")
        }
    }

    /// An aggregate function applied to its arguments: one collection (or one value, which is a
    /// collection of itself, or of nothing when NULL), or several values.
    package func aggregateFunction(_ name: String, _ arguments: [QueryOperand]) throws -> QueryOperand {
        if arguments.count == 1 { return try aggregate(name, over: rows(of: arguments[0])) }
        return try aggregate(name, over: rows(of: .list(arguments.map { $0.isCollection ? .scalar(.null) : $0 })))
    }

    /// Anything as rows: a collection as it is, a list as a derived table (`SELECT a AS v UNION
    /// ALL SELECT b AS v`), a single value as a table of itself, or of nothing when it is NULL.
    package func rows(of value: QueryOperand) throws -> RowCollection {
        switch value {
        case .collection(let collection):
            return collection
        case .list(let items):
            try requireBindable("a list of values used as a collection")
            let values = items.map { $0.isCollection ? SQLScalar.null : $0.scalar }
            let alias = newAlias("d")
            let union = values.isEmpty ? "SELECT NULL AS v WHERE 0" : values.map { "SELECT \($0.sql) AS v" }.joined(separator: " UNION ALL ")
            let kind = values.reduce(SQLKind.null) { $0.union($1.kind) }
            let level = QueryLevel("(\(union)) \(alias)")
            return RowCollection(level: level, element: .scalar(SQLScalar(sql: "\(alias).v", kind: kind, nullable: values.contains(where: \.nullable))))
        case .scalar(let scalar):
            try requireBindable("a value used as a collection")
            let alias = newAlias("d")
            let level = QueryLevel("(SELECT \(scalar.sql) AS v) \(alias)", conditions: scalar.nullable ? ["\(alias).v IS NOT NULL"] : [])
            return RowCollection(level: level, element: .scalar(SQLScalar(sql: "\(alias).v", kind: scalar.kind, nullable: false, attributeType: scalar.attributeType)))
        case .object(let object):
            try requireBindable("an object used as a collection")
            let alias = newAlias("d")
            let level = QueryLevel("(SELECT \(object.key) AS v) \(alias)", conditions: object.nullable ? ["\(alias).v IS NOT NULL"] : [])
            let element = ObjectReference(key: "\(alias).v", alias: nil, entity: object.entity, level: level, nullable: false)
            return RowCollection(level: level, element: .object(element))
        }
    }

    /// A distinct collection as a derived table of its distinct elements.
    package func materialized(_ collection: RowCollection) throws -> RowCollection {
        let element = collection.element.scalar
        let alias = newAlias("d")
        let level = QueryLevel("(\(collection.level.select("DISTINCT \(element.sql) AS v"))) \(alias)")
        switch collection.element {
        case .object(let object):
            let member = ObjectReference(key: "\(alias).v", alias: nil, entity: object.entity, level: level, nullable: object.nullable)
            return RowCollection(level: level, element: .object(member))
        default:
            return RowCollection(level: level, element: .scalar(SQLScalar(
                sql: "\(alias).v", kind: element.kind, nullable: element.nullable, attributeType: element.attributeType)))
        }
    }

    /// An aggregate of a collection's elements.
    package func aggregate(_ function: String, over collection: RowCollection) throws -> QueryOperand {
        let rows = collection.distinct ? try materialized(collection) : collection
        let element = rows.element.scalar
        let level = rows.level
        func numeric() throws {
            guard element.kind.isNumericOrUnknown else {
                throw FetchError(.invalidArgument, "\(function) needs numbers, but the collection holds \(element.kind) values")
            }
        }
        /// The non-NULL elements as a one-column subquery `v`.
        var values: String { level.select("\(element.sql) AS v", extra: element.nullable ? ["\(element.sql) IS NOT NULL"] : []) }
        switch function {
        case "count:":
            return .scalar(SQLScalar(sql: "(\(level.select("COUNT(*)")))", kind: .integer, nullable: false))
        case "sum:":
            try numeric()
            let kind: SQLKind = element.kind == .integer ? .integer : (element.kind == .unknown ? .number : .real)
            return .scalar(SQLScalar(sql: "(\(level.select("COALESCE(SUM(\(element.sql)), 0)")))", kind: kind, nullable: false))
        case "average:":
            try numeric()
            return .scalar(SQLScalar(sql: "(\(level.select("AVG(\(element.sql))")))", kind: .real))
        case "min:", "max:":
            let sqlFunction = function == "min:" ? "MIN" : "MAX"
            return .scalar(SQLScalar(
                sql: "(\(level.select("\(sqlFunction)(\(element.sql))")))", kind: element.kind, attributeType: element.attributeType))
        case "median:":
            try numeric()
            // The middle value, or the mean of the two middle values.
            let ranked = "SELECT v, ROW_NUMBER() OVER (ORDER BY v) AS r, COUNT(*) OVER () AS n FROM (\(values)) AS q_values"
            return .scalar(SQLScalar(sql: "(SELECT AVG(v) FROM (\(ranked)) AS q_ranked WHERE r IN ((n + 1) / 2, (n + 2) / 2))", kind: .real))
        case "stddev:":
            try numeric()
            // The population standard deviation, computed as the evaluator does: mean, then mean square deviation.
            let centred = "SELECT v, AVG(v) OVER () AS m FROM (\(values)) AS q_values"
            return .scalar(SQLScalar(sql: "(SELECT sqrt(AVG((v - m) * (v - m))) FROM (\(centred)) AS q_centred)", kind: .real))
        case "mode:":
            // The most frequent values, as a collection.
            let alias = newAlias("d")
            let counted = "SELECT v, COUNT(*) AS c, MAX(COUNT(*)) OVER () AS top FROM (\(values)) AS q_values GROUP BY v"
            let modes = QueryLevel("(\(counted)) \(alias)", conditions: ["\(alias).c = \(alias).top"])
            let mode = SQLScalar(sql: "\(alias).v", kind: element.kind, nullable: false, attributeType: element.attributeType)
            return .collection(RowCollection(level: modes, element: .scalar(mode)))
        default:
            throw FetchError(.unsupported, "the aggregate function \(function) does not compile to SQL")
        }
    }
}
