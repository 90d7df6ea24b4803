import StoreCore

/// Grouped, aggregated and DISTINCT dictionary fetches (see ``SQLCompiler/selectDictionaries(_:)``).
extension DictionaryPlanner {
    /// The matching objects' values in a common table expression `zrows`, numbered in sort
    /// order (`zr`), grouped by the group-by columns (or, for DISTINCT alone, by every column).
    package func groupedQuery(_ columns: [DictionaryColumnPlan], groups: [DictionaryColumnPlan], _ request: StoreFetchRequest) throws -> DictionaryQuery {
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
            .map { schema.dialect.isSame($0.replacingOccurrences(of: "zrows.", with: "z2."), $0, negated: false) }

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
            sql += "SELECT \(names) FROM (\(grouped)) AS q_grouped GROUP BY \(names) ORDER BY MIN(zr)"
        } else {
            sql += "SELECT \(names) FROM (\(grouped)) AS q_grouped ORDER BY zr"
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
                return ("(CAST(SUM(\(partial("SUM"))) AS \(schema.dialect.realType)) / NULLIF(SUM(\(partial("COUNT"))), 0))", .real, real)
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
                let ranked = "SELECT v, ROW_NUMBER() OVER (ORDER BY v) AS r, COUNT(*) OVER () AS n FROM (\(values)) AS q_values"
                return ("(SELECT AVG(v) FROM (\(ranked)) AS q_ranked WHERE r IN ((n + 1) / 2, (n + 2) / 2))", .real, real)
            case "stddev:":
                try requireNumbers(value.kind, function)
                let centred = "SELECT v, AVG(v) OVER () AS m FROM (\(values)) AS q_values"
                return ("(SELECT sqrt(AVG((v - m) * (v - m))) FROM (\(centred)) AS q_centred)", .real, real)
            case "mode:":
                // The most frequent value; among equally frequent ones, the first in fetch order.
                let ranked = "SELECT \(groupValue) AS v, z2.zr AS r FROM zrows z2 WHERE \(inGroup)"
                let counted = "SELECT v, COUNT(*) AS c, MIN(r) AS r FROM (\(ranked)) AS q_ranked GROUP BY v"
                return ("(SELECT v FROM (\(counted)) AS q_counted ORDER BY c DESC, r LIMIT 1)", value.kind, reader)
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
}
