import StoreCore

/// Dictionary fetches, giving the rows the in-memory `DictionaryFetch` gives.
///
/// Without grouping, aggregates or DISTINCT, one row per object:
///
/// ```
/// SELECT t0.ZPLACE, t1.ZNAME FROM ZQUAKE t0 LEFT JOIN ZREGION t1 ON t1.Z_PK = t0.ZREGION
/// WHERE … ORDER BY … , t0.Z_PK LIMIT ?1 OFFSET ?2
/// ```
///
/// Otherwise the matching objects' per-row values are computed once in a common table
/// expression, numbered in the fetch's sort order, and grouped from there — which is what lets
/// SQL follow the evaluator exactly: groups come in the order of their first object, a column
/// that is neither grouped nor aggregated takes the group's first object's value (`FIRST_VALUE`),
/// DISTINCT keeps a row's first occurrence, and `median:`, `mode:` and `stddev:` run over each
/// group's rows:
///
/// ```
/// WITH zrows AS (SELECT t0.ZPLACE AS g0, t0.ZMAGNITUDE AS a0, ROW_NUMBER() OVER (ORDER BY t0.ZPLACE ASC, t0.Z_PK) AS zr
///                FROM ZQUAKE t0 WHERE …)
/// SELECT zrows.g0, AVG(zrows.a0) FROM zrows GROUP BY zrows.g0 HAVING AVG(zrows.a0) > ?1 ORDER BY MIN(zrows.zr)
/// ```
extension SQLCompiler {
    /// A dictionary fetch (see ``DictionaryQuery``).
    func selectDictionaries(_ request: StoreFetchRequest) throws -> DictionaryQuery {
        let fetch = try FilteredFetch(request, schema: schema, model: model)
        let requested = request.propertiesToFetch ?? fetch.entity.attributes.filter { !$0.isTransient }.map { .property($0.name) }
        let groupBy = request.propertiesToGroupBy ?? []
        try Self.checkColumns(requested + groupBy, of: fetch.entity)
        let planner = DictionaryPlanner(fetch: fetch, schema: schema)
        let columns = try requested.map { try planner.plan($0) }
        let groups = try groupBy.map { try planner.plan($0) }
        if groups.isEmpty && !columns.contains(where: \.isAggregate) && !request.returnsDistinctResults {
            return try planner.rowQuery(columns, request)
        }
        return try planner.groupedQuery(columns, groups: groups, request)
    }

    /// The checks the evaluator makes on the columns: known first keys, no to-many alone.
    private static func checkColumns(_ columns: [PropertyToFetch], of entity: EntityDescription) throws {
        for case .property(let key) in columns {
            let first = String(key.split(separator: ".").first ?? "")
            guard let property = entity.propertiesByName[first] else {
                throw FetchError(.invalidKeyPath, "propertiesToFetch names '\(key)', but \(entity.name) has no property '\(first)'")
            }
            if let relationship = property as? RelationshipDescription, relationship.isToMany, first == key {
                throw FetchError(.unsupported, "propertiesToFetch cannot name the to-many relationship '\(key)'; fetch an aggregate of it instead")
            }
        }
    }
}

/// One value per matching object, in SQL: a column, a joined column, an expression.
struct RowValue {
    var sql: String
    var kind: SQLKind
    var attributeType: AttributeType?
    /// An object's entity when it is not known statically: the SQL of its `Z_ENT`.
    var entitySQL: String?
    var objectEntity: String?

    func reader(entityIndex: Int?, schema: SQLiteSchema) -> ValueReader {
        if case .object = kind {
            return .object(entity: objectEntity, entityIndex: entityIndex, entityNames: schema.entityNames)
        }
        if let attributeType { return .attribute(attributeType) }
        return .kind(kind)
    }

    var scalar: SQLScalar { SQLScalar(sql: sql, kind: kind, nullable: true, attributeType: attributeType) }
}

/// A planned dictionary column.
struct DictionaryColumnPlan {
    enum Value {
        case row(RowValue)
        case aggregate(String, AggregateArgument)
    }

    /// What an aggregate runs over, per object.
    enum AggregateArgument {
        /// No argument: each object counts as the value 1.
        case objects
        /// One value per object.
        case value(RowValue)
        /// A collection per object, flattened over the group (`sum:(reports.rating)`).
        case collection(RowCollection)
        /// A to-many named by a plain key: the evaluator reads it as one NULL value per object.
        case nothing
    }

    let name: String
    let value: Value
    let resultType: AttributeType?

    var isAggregate: Bool {
        if case .aggregate = value { return true }
        return false
    }
}

/// Plans and assembles the SQL of one dictionary fetch.
struct DictionaryPlanner {
    let fetch: FilteredFetch
    let schema: SQLiteSchema
    var translator: QueryTranslator { fetch.translator }

    func plan(_ column: PropertyToFetch) throws -> DictionaryColumnPlan {
        switch column {
        case .property(let key):
            return DictionaryColumnPlan(name: key, value: .row(try rowValue(translator.follow(key, from: fetch.scope.subject))), resultType: nil)
        case .expression(let description):
            if case .function(let function, let arguments) = description.expression, QueryTranslator.aggregateFunctionNames.contains(function) {
                return DictionaryColumnPlan(name: description.name, value: .aggregate(function, try argument(arguments.first)), resultType: description.resultType)
            }
            let value = try rowValue(translator.operand(description.expression, fetch.scope))
            return DictionaryColumnPlan(name: description.name, value: .row(value), resultType: description.resultType)
        }
    }

    private func argument(_ expression: StoreExpression?) throws -> DictionaryColumnPlan.AggregateArgument {
        guard let expression else { return .objects }
        if case .keyPath(let key) = expression, !key.contains("."),
            let relationship = fetch.entity.relationshipsByName[key], relationship.isToMany {
            return .nothing
        }
        let value = try translator.operand(expression, fetch.scope)
        if value.isCollection { return .collection(try translator.rows(of: value)) }
        return .value(try rowValue(value))
    }

    private func rowValue(_ operand: QueryOperand) throws -> RowValue {
        switch operand {
        case .object(let object):
            let entitySQL = object.entity.entityAndDescendantNames.count > 1 ? translator.qualified(try translator.alias(of: object), "Z_ENT") : nil
            return RowValue(sql: object.key, kind: .object(object.entity.name), entitySQL: entitySQL, objectEntity: entitySQL == nil ? object.entity.name : nil)
        case .scalar(let scalar):
            return RowValue(sql: scalar.sql, kind: scalar.kind, attributeType: scalar.attributeType)
        case .collection, .list:
            // A collection is NULL as a column value in memory.
            return RowValue(sql: "NULL", kind: .null)
        }
    }

    // MARK: One row per object

    func rowQuery(_ columns: [DictionaryColumnPlan], _ request: StoreFetchRequest) throws -> DictionaryQuery {
        var select: [String] = []
        var readers: [DictionaryQuery.Column] = []
        var named: [String: QueryOperand] = [:]
        for column in columns {
            guard case .row(let value) = column.value else { continue }
            readers.append(add(value, named: column.name, resultType: column.resultType, to: &select))
            named[column.name] = .scalar(value.scalar)
        }
        if let having = request.havingPredicate {
            fetch.level.restrict(try havingCondition(having, columns: named).sql)
        }
        var orders = try translator.orderTerms(request.sortDescriptors, fetch.scope)
        orders.append("t0.Z_PK")
        var sql = fetch.level.select(select.isEmpty ? "NULL" : select.joined(separator: ", "))
        sql += " ORDER BY " + orders.joined(separator: ", ") + fetch.limitClause(request)
        return DictionaryQuery(query: translator.finish(sql), columns: readers)
    }

    private func add(_ value: RowValue, named name: String, resultType: AttributeType?, to select: inout [String]) -> DictionaryQuery.Column {
        let index = select.count
        select.append(value.sql)
        var entityIndex: Int?
        if let entitySQL = value.entitySQL {
            entityIndex = select.count
            select.append(entitySQL)
        }
        return DictionaryQuery.Column(name: name, index: index, reader: value.reader(entityIndex: entityIndex, schema: schema), resultType: resultType)
    }

    // MARK: Groups

    func groupedQuery(_ columns: [DictionaryColumnPlan], groups: [DictionaryColumnPlan], _ request: StoreFetchRequest) throws -> DictionaryQuery {
        let aggregated = !groups.isEmpty || columns.contains(where: \.isAggregate)
        // DISTINCT rows without aggregates are groups of equal rows.
        let keys: [(name: String, value: RowValue)] = try (aggregated ? groups : columns).map { column in
            guard case .row(let value) = column.value else {
                throw FetchError(.unsupported, "grouping by the aggregate expression '\(column.name)' does not compile to SQL")
            }
            return (column.name, value)
        }
        let sorts = try translator.orderTerms(request.sortDescriptors, fetch.scope) + ["t0.Z_PK"]
        let order = "ORDER BY " + sorts.joined(separator: ", ")
        var inner: [String] = []
        var groupColumns: [String] = []
        func innerColumn(_ sql: String, _ prefix: String) -> String {
            let name = "\(prefix)\(inner.count)"
            inner.append("\(sql) AS \(name)")
            return "zrows.\(name)"
        }
        var keyColumns: [(name: String, value: RowValue, sql: String, entity: String?)] = []
        for key in keys {
            let sql = innerColumn(key.value.sql, "g")
            groupColumns.append(sql)
            let entity = key.value.entitySQL.map { entitySQL in
                let column = innerColumn(entitySQL, "e")
                groupColumns.append(column)
                return column
            }
            keyColumns.append((key.name, key.value, sql, entity))
        }
        let window = "OVER (" + (keys.isEmpty ? "" : "PARTITION BY \(keys.map(\.value.sql).joined(separator: ", ")) ") + order + ")"
        let match = keyColumns.flatMap { [$0.sql] + ($0.entity.map { [$0] } ?? []) }
            .map { $0.replacingOccurrences(of: "zrows.", with: "z2.") + " IS \($0)" }

        // Output columns, as expressions over zrows.
        var outer: [(name: String, sql: String, reader: ValueReader, entity: String?, kind: SQLKind, resultType: AttributeType?)] = []
        // Grouped columns are read from their group key; without aggregates, every column is one.
        let columnsToRead = aggregated ? columns.filter { column in !keys.contains { $0.name == column.name } } : []
        for column in columnsToRead {
            switch column.value {
            case .row(let value):
                let first = innerColumn("FIRST_VALUE(\(value.sql)) \(window)", "f")
                let entity = value.entitySQL.map { "MIN(\(innerColumn("FIRST_VALUE(\($0)) \(window)", "f")))" }
                outer.append((column.name, "MIN(\(first))", value.reader(entityIndex: nil, schema: schema), entity, value.kind, column.resultType))
            case .aggregate(let function, let argument):
                let (sql, kind, reader) = try aggregate(function, argument, match: match, innerColumn: innerColumn)
                outer.append((column.name, sql, reader, nil, kind, column.resultType))
            }
        }
        for key in keyColumns {
            outer.removeAll { $0.name == key.name }
            outer.append((key.name, key.sql, key.value.reader(entityIndex: nil, schema: schema), key.entity, key.value.kind, nil))
        }
        inner.append("ROW_NUMBER() OVER (\(order)) AS zr")

        // SELECT list and readers.
        var select: [String] = []
        var readers: [DictionaryQuery.Column] = []
        var named: [String: QueryOperand] = [:]
        for column in outer {
            let index = select.count
            select.append("\(column.sql) AS c\(index)")
            var reader = column.reader
            if let entity = column.entity {
                select.append("\(entity) AS c\(select.count)")
                if case .object(let name, _, let names) = reader { reader = .object(entity: name, entityIndex: index + 1, entityNames: names) }
            }
            readers.append(DictionaryQuery.Column(name: column.name, index: index, reader: reader, resultType: column.resultType))
            named[column.name] = .scalar(SQLScalar(sql: column.sql, kind: column.kind))
        }
        var grouped = "SELECT \(select.joined(separator: ", ")), MIN(zrows.zr) AS zr FROM zrows"
        if !groupColumns.isEmpty { grouped += " GROUP BY " + groupColumns.joined(separator: ", ") }
        if let having = request.havingPredicate {
            let condition = try havingCondition(having, columns: named)
            if !condition.isTrue { grouped += " HAVING " + condition.sql }
        }
        var sql = "WITH zrows AS (\(fetch.level.select(inner.joined(separator: ", ")))) "
        let names = select.indices.map { "c\($0)" }.joined(separator: ", ")
        if request.returnsDistinctResults && aggregated {
            sql += "SELECT \(names) FROM (\(grouped)) GROUP BY \(names) ORDER BY MIN(zr)"
        } else {
            sql += "SELECT \(names) FROM (\(grouped)) ORDER BY zr"
        }
        sql += fetch.limitClause(request)
        return DictionaryQuery(query: translator.finish(sql), columns: readers)
    }

    /// An aggregate column over a group: SQL aggregates of per-object values, or — for the
    /// aggregates SQL lacks — a subquery over the group's rows.
    private func aggregate(
        _ function: String, _ argument: DictionaryColumnPlan.AggregateArgument, match: [String],
        innerColumn: (String, String) -> String
    ) throws -> (String, SQLKind, ValueReader) {
        let real = ValueReader.kind(.real)
        switch argument {
        case .nothing:
            switch function {
            case "count:", "sum:": return ("0", .integer, .kind(.integer))
            default: return ("NULL", .null, .kind(.null))
            }
        case .collection(let collection):
            let element = collection.element.scalar
            func partial(_ sqlFunction: String) -> String {
                innerColumn("(\(collection.level.select("\(sqlFunction)(\(element.sql))")))", "p")
            }
            switch function {
            case "count:": return ("COALESCE(SUM(\(partial("COUNT"))), 0)", .integer, .kind(.integer))
            case "sum:":
                try requireNumbers(element.kind, function)
                let kind: SQLKind = element.kind == .integer ? .integer : .real
                return ("COALESCE(SUM(\(partial("SUM"))), 0)", kind, .kind(kind))
            case "min:", "max:":
                let sqlFunction = function == "min:" ? "MIN" : "MAX"
                return ("\(sqlFunction)(\(partial(sqlFunction)))", element.kind, element.attributeType.map(ValueReader.attribute) ?? .kind(element.kind))
            case "average:":
                try requireNumbers(element.kind, function)
                return ("(CAST(SUM(\(partial("SUM"))) AS REAL) / NULLIF(SUM(\(partial("COUNT"))), 0))", .real, real)
            default:
                throw FetchError(.unsupported, "\(function) of a to-many collection in a dictionary fetch does not compile to SQL")
            }
        case .objects, .value:
            let value: RowValue
            if case .value(let given) = argument { value = given } else { value = RowValue(sql: "1", kind: .integer) }
            if case .object = value.kind, function != "count:" {
                throw FetchError(.unsupported, "\(function) of objects in a dictionary fetch does not compile to SQL")
            }
            let column = innerColumn(value.sql, "a")
            let reader = value.reader(entityIndex: nil, schema: schema)
            // The group's non-NULL values, for the aggregates that run as subqueries.
            let groupValue = column.replacingOccurrences(of: "zrows.", with: "z2.")
            let inGroup = (match + ["\(groupValue) IS NOT NULL"]).joined(separator: " AND ")
            let values = "SELECT \(groupValue) AS v FROM zrows z2 WHERE \(inGroup)"
            switch function {
            case "count:": return ("COUNT(\(column))", .integer, .kind(.integer))
            case "sum:":
                try requireNumbers(value.kind, function)
                let kind: SQLKind = value.kind == .integer ? .integer : (value.kind == .unknown ? .number : .real)
                return ("COALESCE(SUM(\(column)), 0)", kind, .kind(kind))
            case "average:":
                try requireNumbers(value.kind, function)
                return ("AVG(\(column))", .real, real)
            case "min:": return ("MIN(\(column))", value.kind, reader)
            case "max:": return ("MAX(\(column))", value.kind, reader)
            case "median:":
                try requireNumbers(value.kind, function)
                let ranked = "SELECT v, ROW_NUMBER() OVER (ORDER BY v) AS r, COUNT(*) OVER () AS n FROM (\(values))"
                return ("(SELECT AVG(v) FROM (\(ranked)) WHERE r IN ((n + 1) / 2, (n + 2) / 2))", .real, real)
            case "stddev:":
                try requireNumbers(value.kind, function)
                let centred = "SELECT v, AVG(v) OVER () AS m FROM (\(values))"
                return ("(SELECT sqrt(AVG((v - m) * (v - m))) FROM (\(centred)))", .real, real)
            case "mode:":
                // The most frequent value; among equally frequent ones, the first in fetch order.
                let ranked = "SELECT \(groupValue) AS v, z2.zr AS r FROM zrows z2 WHERE \(inGroup)"
                let counted = "SELECT v, COUNT(*) AS c, MIN(r) AS r FROM (\(ranked)) GROUP BY v"
                return ("(SELECT v FROM (\(counted)) ORDER BY c DESC, r LIMIT 1)", value.kind, reader)
            default:
                throw FetchError(.unsupported, "the aggregate function \(function) does not compile to SQL")
            }
        }
    }

    private func requireNumbers(_ kind: SQLKind, _ function: String) throws {
        guard kind.isNumericOrUnknown else {
            throw FetchError(.invalidArgument, "\(function) needs numbers, got \(kind) values")
        }
    }

    // MARK: Having

    /// The having predicate, its key paths naming result columns.
    private func havingCondition(_ predicate: StorePredicate, columns: [String: QueryOperand]) throws -> SQLCondition {
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
