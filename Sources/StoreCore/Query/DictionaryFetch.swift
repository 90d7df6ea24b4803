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
        let columns = request.propertiesToFetch ?? entity.attributes.filter { !$0.isTransient }.map { .property($0.name) }
        let groupBy = request.propertiesToGroupBy ?? []
        try checkColumns(columns + groupBy)
        let aggregates = columns.contains { isAggregate($0) }
        var rows: [FetchedDictionary] = []
        if groupBy.isEmpty && !aggregates {
            rows = try sources.map { source in try row(columns, from: [source]) }
        } else {
            var order: [[StoreValue]] = []
            var groups: [[StoreValue]: [any PredicateEvaluationSource]] = [:]
            for source in sources {
                let key = try groupBy.map { try value(of: $0, rows: [source]) }
                if groups[key] == nil { order.append(key) }
                groups[key, default: []].append(source)
            }
            if groupBy.isEmpty && order.isEmpty { order = [[]]; groups[[]] = [] }
            for key in order {
                var row = try self.row(columns, from: groups[key] ?? [])
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

    private func checkColumns(_ columns: [PropertyToFetch]) throws {
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

    private func isAggregate(_ column: PropertyToFetch) -> Bool {
        guard case .expression(let description) = column, case .function(let name, _) = description.expression else { return false }
        return CollectionOperator.aggregateFunctionNames.contains(name)
    }

    private func row(_ columns: [PropertyToFetch], from group: [any PredicateEvaluationSource]) throws -> FetchedDictionary {
        var row: FetchedDictionary = [:]
        for column in columns {
            var value = try value(of: column, rows: group)
            if case .expression(let description) = column, let type = description.resultType, let converted = type.coerce(value) {
                value = converted
            }
            row[column.name] = value
        }
        return row
    }

    /// A column's value: aggregates run over the whole group, anything else reads the first row.
    private func value(of column: PropertyToFetch, rows: [any PredicateEvaluationSource]) throws -> StoreValue {
        let expression: StoreExpression
        switch column {
        case .property(let key): expression = .keyPath(key)
        case .expression(let description): expression = description.expression
        }
        if case .function(let name, let arguments) = expression, CollectionOperator.aggregateFunctionNames.contains(name) {
            var values: [EvaluatedValue] = []
            for row in rows {
                guard let argument = arguments.first else { values.append(.value(.integer(1))); continue }
                switch try evaluator.value(of: argument, on: row) {
                case .collection(let items): values += items
                case let single: values.append(single)
                }
            }
            // As in SQL (and Core Data's SQLite store), aggregates over a column skip NULLs.
            values.removeAll { $0.storeValue.isNull }
            switch try CollectionOperator.function(name, values) {
            case .collection(let modes)?: return modes.first?.storeValue ?? .null
            case let result?: return result.storeValue
            case nil: return .null
            }
        }
        guard let first = rows.first else { return .null }
        return try evaluator.value(of: expression, on: first).storeValue
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
