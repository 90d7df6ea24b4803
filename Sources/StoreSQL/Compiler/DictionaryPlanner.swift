import StoreCore

/// Plans and assembles the SQL of one dictionary fetch: each fetched property or expression
/// becomes a per-object value (``RowValue``) or an aggregate of one (``DictionaryColumnPlan``),
/// then one SELECT reads them — one row per object, or grouped (`DictionaryPlanner+Groups`).
///
/// For example, `propertiesToFetch = ["place", "region.name"]` on `Quake`:
///
/// ```
/// SELECT t0.ZPLACE, t1.ZNAME FROM ZQUAKE t0 LEFT JOIN ZREGION t1 ON t1.Z_PK = t0.ZREGION ORDER BY t0.Z_PK
/// ```
package struct DictionaryPlanner {
    package let fetch: FilteredFetch
    package let schema: SQLSchema
    package var translator: QueryTranslator { fetch.translator }

    package func plan(_ column: PropertyToFetch) throws -> DictionaryColumnPlan {
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

    package func rowQuery(_ columns: [DictionaryColumnPlan], _ request: StoreFetchRequest) throws -> DictionaryQuery {
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
}

/// One value per matching object, in SQL: a column, a joined column, an expression.
package struct RowValue {
    package var sql: String
    package var kind: SQLKind
    package var attributeType: AttributeType?
    /// An object's entity when it is not known statically: the SQL of its `Z_ENT`.
    package var entitySQL: String?
    package var objectEntity: String?

    package func reader(entityIndex: Int?, schema: SQLSchema) -> ValueReader {
        if case .object = kind {
            return .object(entity: objectEntity, entityIndex: entityIndex, entityNames: schema.entityNames)
        }
        if let attributeType { return .attribute(attributeType) }
        return .kind(kind)
    }

    package var scalar: SQLScalar { SQLScalar(sql: sql, kind: kind, nullable: true, attributeType: attributeType) }
}

/// A planned dictionary column.
package struct DictionaryColumnPlan {
    package enum Value {
        case row(RowValue)
        case aggregate(String, AggregateArgument)
    }

    /// What an aggregate runs over, per object.
    package enum AggregateArgument {
        /// No argument: each object counts as the value 1.
        case objects
        /// One value per object.
        case value(RowValue)
        /// A collection per object, flattened over the group (`sum:(reports.rating)`).
        case collection(RowCollection)
        /// A to-many named by a plain key: the evaluator reads it as one NULL value per object.
        case nothing
    }

    package let name: String
    package let value: Value
    package let resultType: AttributeType?

    package var isAggregate: Bool {
        if case .aggregate = value { return true }
        return false
    }
}
