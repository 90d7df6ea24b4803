import Foundation

/// Builds the rows of a dictionary fetch in memory from the objects that matched the predicate
/// (already sorted): columns, grouping with aggregates, the having predicate, distinct results,
/// offset and limit.
package struct DictionaryFetch {
    let request: StoreFetchRequest
    let entity: EntityDescription
    let evaluator = PredicateEvaluator()

    package init(request: StoreFetchRequest, entity: EntityDescription) {
        self.request = request
        self.entity = entity
    }

    package func rows(from sources: [any PredicateEvaluationSource]) throws -> [FetchedDictionary] {
        let requested = request.propertiesToFetch ?? entity.attributes.filter { !$0.isTransient }.map { .property($0.name) }
        try Self.checkColumns(requested + (request.propertiesToGroupBy ?? []), of: entity)
        let columns = requested.map(Column.init)
        let groupBy = (request.propertiesToGroupBy ?? []).map(Column.init)
        var rows: [FetchedDictionary] = []
        if groupBy.isEmpty && !columns.contains(where: \.isAggregate) {
            rows.reserveCapacity(sources.count)
            for source in sources {
                var row = FetchedDictionary(minimumCapacity: columns.count)
                for column in columns { row[column.name] = try value(of: column, on: source) }
                rows.append(row)
            }
        } else {
            var order: [[StoreValue]] = []
            var groups: [[StoreValue]: [any PredicateEvaluationSource]] = [:]
            for source in sources {
                let key = try groupBy.map { try value(of: $0, on: source) }
                if groups[key]?.append(source) == nil {
                    order.append(key)
                    groups[key] = [source]
                }
            }
            if groupBy.isEmpty && order.isEmpty { order = [[]]; groups[[]] = [] }
            for key in order {
                let group = groups[key] ?? []
                var row = FetchedDictionary(minimumCapacity: columns.count + groupBy.count)
                for column in columns { row[column.name] = try value(of: column, over: group) }
                for (column, value) in zip(groupBy, key) { row[column.name] = value }
                rows.append(row)
            }
        }
        if let having = request.havingPredicate {
            rows = try rows.filter { try evaluator.evaluate(having, on: DictionarySource(row: $0)) }
        }
        if request.returnsDistinctResults {
            var seen = Set<FetchedDictionary>()
            rows = rows.filter { seen.insert($0).inserted }
        }
        if request.fetchOffset > 0 { rows = Array(rows.dropFirst(request.fetchOffset)) }
        if request.fetchLimit > 0 { rows = Array(rows.prefix(request.fetchLimit)) }
        return rows
    }

    /// A column compiled once per fetch: a stored property read directly, an expression, or an aggregate.
    private struct Column {
        enum Kind {
            case key(String)
            case expression(StoreExpression)
            /// An aggregate function and its argument: none (`count:` of rows), a stored property, or an expression.
            indirect case aggregate(String, Kind?)
        }
        let name: String
        let kind: Kind
        let resultType: AttributeType?

        init(_ column: PropertyToFetch) {
            name = column.name
            switch column {
            case .property(let key):
                kind = Self.compile(.keyPath(key))
                resultType = nil
            case .expression(let description):
                if case .function(let function, let arguments) = description.expression,
                    CollectionOperator.aggregateFunctionNames.contains(function)
                {
                    kind = .aggregate(function, arguments.first.map(Self.compile))
                } else {
                    kind = .expression(description.expression)
                }
                resultType = description.resultType
            }
        }

        /// A plain key path without dots is read straight from the row.
        static func compile(_ expression: StoreExpression) -> Kind {
            if case .keyPath(let key) = expression, !key.utf8.contains(UInt8(ascii: ".")) { return .key(key) }
            return .expression(expression)
        }

        var isAggregate: Bool {
            if case .aggregate = kind { return true }
            return false
        }
    }

    /// Refuses columns whose first key is unknown, and a to-many relationship named alone;
    /// every store checks dictionary columns with this, so all give the same errors.
    package static func checkColumns(_ columns: [PropertyToFetch], of entity: EntityDescription) throws {
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

    /// A column's value for one row (aggregates: over that row alone).
    private func value(of column: Column, on source: any PredicateEvaluationSource) throws -> StoreValue {
        switch column.kind {
        case .key(let key): return try source.evaluationValue(forKey: key).storeValue
        case .expression(let expression): return converted(try evaluator.value(of: expression, on: source).storeValue, column)
        case .aggregate: return try value(of: column, over: [source])
        }
    }

    /// A column's value for a group: aggregates run over the whole group, anything else reads its first row.
    private func value(of column: Column, over group: [any PredicateEvaluationSource]) throws -> StoreValue {
        guard case .aggregate(let function, let argument) = column.kind else {
            guard let first = group.first else { return .null }
            return try value(of: column, on: first)
        }
        var values: [EvaluatedValue] = []
        values.reserveCapacity(group.count)
        for row in group {
            switch argument {
            case nil: values.append(.value(.integer(1)))
            case .key(let key)?: values.append(try row.evaluationValue(forKey: key))
            case .expression(let expression)?:
                switch try evaluator.value(of: expression, on: row) {
                case .collection(let items): values += items
                case let single: values.append(single)
                }
            case .aggregate?: break
            }
        }
        // As in SQL (and Core Data's SQLite store), aggregates over a column skip NULLs.
        values.removeAll { $0.storeValue.isNull }
        let result: StoreValue
        switch try CollectionOperator.function(function, values) {
        case .collection(let modes)?: result = modes.first?.storeValue ?? .null
        case let single?: result = single.storeValue
        case nil: result = .null
        }
        return converted(result, column)
    }

    private func converted(_ value: StoreValue, _ column: Column) -> StoreValue {
        guard let type = column.resultType else { return value }
        return type.coerce(value) ?? value
    }
}

/// A result dictionary as a predicate source, for the having predicate.
struct DictionarySource: PredicateEvaluationSource {
    let row: FetchedDictionary
    var evaluationObjectID: ManagedObjectID? { nil }
    func evaluationValue(forKey key: String) throws -> EvaluatedValue {
        guard let value = row[key] else {
            throw FetchError(.invalidKeyPath, "the having predicate names '\(key)', which is not a fetched column")
        }
        return .value(value)
    }
}
