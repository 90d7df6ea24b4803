/// Grouped dictionary fetches (`propertiesToGroupBy`, or aggregates over every row): one pass
/// over the rows, groups found by their key values without an array per row, aggregates
/// accumulated as rows are met.
extension DictionaryFetch {
    /// A group: its key values, its first row (for columns that are not aggregates) and its
    /// aggregates so far, in the order of the aggregate columns.
    private struct Group<Source> {
        let key: [StoreValue]
        let first: Source?
        var aggregates: [AggregateAccumulator]
    }

    /// The groups met so far by key: keyed by the value itself when grouping by one column.
    private struct GroupIndex {
        private var byValue: [StoreValue: Int] = [:]
        private var byValues: [[StoreValue]: Int] = [:]
        private let width: Int

        init(width: Int) { self.width = width }

        @inline(__always)
        func group(of key: [StoreValue]) -> Int? {
            width == 1 ? byValue[key[0]] : byValues[key]
        }

        mutating func insert(_ key: [StoreValue], as group: Int) {
            if width == 1 { byValue[key[0]] = group } else { byValues[key] = group }
        }
    }

    /// One row per group, groups in the order their first row was met; with no group-by
    /// columns, one row over every source (even none).
    func groupedRows<Source>(from sources: [Source], reader: inout ColumnReader<Source>) throws -> [FetchedDictionary] {
        let aggregateColumns = reader.columns.indices.filter { reader.columns[$0].isAggregate }
        let fresh = aggregateColumns.map { index -> AggregateAccumulator in
            guard case .aggregate(let function, _) = reader.columns[index].kind else { return AggregateAccumulator("count:") }
            return AggregateAccumulator(function)
        }
        var groups: [Group<Source>] = []
        var index = GroupIndex(width: reader.groupBy.count)
        // Reused for every row: only a new group keeps a copy of it.
        var key: [StoreValue] = []
        key.reserveCapacity(reader.groupBy.count)
        for source in sources {
            let resolved = reader.resolved(for: source.indexedEntity)
            key.removeAll(keepingCapacity: true)
            for column in resolved.groupBy { key.append(try reader.value(of: column, on: source)) }
            let group: Int
            if let found = index.group(of: key) {
                group = found
            } else {
                group = groups.count
                index.insert(key, as: group)
                groups.append(Group(key: key, first: source, aggregates: fresh))
            }
            for (slot, column) in aggregateColumns.enumerated() {
                guard case .aggregate(_, let argument) = resolved.columns[column].kind else { continue }
                try reader.add(argument, of: source, to: &groups[group].aggregates[slot])
            }
        }
        if reader.groupBy.isEmpty && groups.isEmpty { groups = [Group(key: [], first: nil, aggregates: fresh)] }
        var rows: [FetchedDictionary] = []
        rows.reserveCapacity(groups.count)
        for group in groups {
            var row = FetchedDictionary(minimumCapacity: reader.columns.count + reader.groupBy.count)
            let columns = group.first.map { reader.resolved(for: $0.indexedEntity).columns } ?? reader.columns
            var slot = 0
            for column in columns {
                if column.isAggregate {
                    row[column.name] = try reader.result(of: group.aggregates[slot], column)
                    slot += 1
                } else if let first = group.first {
                    row[column.name] = try reader.value(of: column, on: first)
                } else {
                    row[column.name] = .null
                }
            }
            for (column, value) in zip(reader.groupBy, group.key) { row[column.name] = value }
            rows.append(row)
        }
        return rows
    }
}
