import Foundation

/// Builds the rows of a dictionary fetch in memory from the objects that matched the predicate
/// (already sorted): columns, grouping with aggregates, the having predicate, distinct results,
/// offset and limit.
///
/// Columns naming the entity's own attributes are read by property index (resolved once per
/// entity met); groups are keyed without building an array per row, and aggregates are
/// accumulated as rows are met (see ``AggregateAccumulator``).
package struct DictionaryFetch {
    let request: StoreFetchRequest
    let entity: EntityDescription
    let evaluator = PredicateEvaluator()

    package init(request: StoreFetchRequest, entity: EntityDescription) {
        self.request = request
        self.entity = entity
    }

    /// The rows for sources read by name.
    package func rows(from sources: [any PredicateEvaluationSource]) throws -> [FetchedDictionary] {
        try rows(from: sources.map(NamedEvaluationSource.init), fallbackSource: { $0.source })
    }

    /// The rows for sources read by property index where a column names an attribute, and
    /// through `fallbackSource`, by name, otherwise.
    package func rows<Source: IndexedEvaluationSource>(
        from sources: [Source], fallbackSource: @escaping (Source) -> any PredicateEvaluationSource
    ) throws -> [FetchedDictionary] {
        let requested = request.propertiesToFetch ?? entity.attributes.filter { !$0.isTransient }.map { .property($0.name) }
        try Self.checkColumns(requested + (request.propertiesToGroupBy ?? []), of: entity)
        var reader = ColumnReader(
            columns: requested.map(Column.init), groupBy: (request.propertiesToGroupBy ?? []).map(Column.init),
            evaluator: evaluator, fallbackSource: fallbackSource)
        var rows: [FetchedDictionary]
        if reader.groupBy.isEmpty && !reader.columns.contains(where: \.isAggregate) {
            rows = []
            rows.reserveCapacity(sources.count)
            for source in sources {
                let columns = reader.resolved(for: source).columns
                var row = FetchedDictionary(minimumCapacity: columns.count)
                for column in columns { row[column.name] = try reader.value(of: column, on: source) }
                rows.append(row)
            }
        } else {
            rows = try groupedRows(from: sources, reader: &reader)
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

    /// Refuses columns whose first key is unknown, and a to-many relationship named alone;
    /// every store checks dictionary columns with this, so all give the same errors.
    package static func checkColumns(_ columns: [PropertyToFetch], of entity: EntityDescription) throws {
        for case .property(let key) in columns {
            var rest = key.split(separator: ".").map(String.init)[...]
            let first = entity.storedKey(rest.popFirst() ?? "", continuingWith: &rest)
            guard let property = entity.propertiesByName[first] else {
                throw FetchError(.invalidKeyPath, "propertiesToFetch names '\(key)', but \(entity.name) has no property '\(first)'")
            }
            if let relationship = property as? RelationshipDescription, relationship.isToMany, first == key {
                throw FetchError(.unsupported, "propertiesToFetch cannot name the to-many relationship '\(key)'; fetch an aggregate of it instead")
            }
        }
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
