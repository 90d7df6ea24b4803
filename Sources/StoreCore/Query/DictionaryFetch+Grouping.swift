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
            byValues[key]
        }

        /// The group of a one-column key.
        @inline(__always)
        func group(of value: StoreValue) -> Int? {
            byValue[value]
        }

        mutating func insert(_ key: [StoreValue], as group: Int) {
            if width == 1, let value = key.first { byValue[value] = group } else { byValues[key] = group }
        }
    }

    /// One row per group, groups in the order their first row was met; with no group-by
    /// columns, one row over every source (even none).
    func groupedRows<Source>(from sources: [Source], reader: inout ColumnReader<Source>) throws -> [FetchedDictionary] {
        let fresh: [AggregateAccumulator] = reader.columns.compactMap { column in
            guard case .aggregate(let function, _) = column.kind else { return nil }
            return AggregateAccumulator(function)
        }
        let width = reader.groupBy.count
        var groups: [Group<Source>] = []
        var index = GroupIndex(width: reader.groupBy.count)
        // Reused for every row: only a new group keeps a copy of it.
        var key: [StoreValue] = []
        key.reserveCapacity(reader.groupBy.count)
        var entity: ObjectIdentifier??
        var resolution = Resolution(columns: reader.columns, groupBy: reader.groupBy)
        for source in sources {
            let identity = source.indexedEntityIdentity
            if entity != .some(identity) {
                resolution = reader.resolved(for: source)
                entity = .some(identity)
            }
            let found: Int?
            if width == 1 {
                // One column: the value itself is the key, no array per row.
                let value = try reader.value(of: resolution.groupBy[0], on: source)
                found = index.group(of: value)
                if found == nil { key = [value] }
            } else {
                key.removeAll(keepingCapacity: true)
                for position in resolution.groupBy.indices { key.append(try reader.value(of: resolution.groupBy[position], on: source)) }
                found = index.group(of: key)
            }
            let group: Int
            if let found {
                group = found
            } else {
                group = groups.count
                index.insert(key, as: group)
                groups.append(Group(key: key, first: source, aggregates: fresh))
            }
            for slot in resolution.aggregateArguments.indices {
                try reader.add(resolution.aggregateArguments[slot], of: source, to: &groups[group].aggregates[slot])
            }
        }
        if reader.groupBy.isEmpty && groups.isEmpty { groups = [Group(key: [], first: nil, aggregates: fresh)] }
        var rows: [FetchedDictionary] = []
        rows.reserveCapacity(groups.count)
        for group in groups {
            var row = FetchedDictionary(minimumCapacity: reader.columns.count + reader.groupBy.count)
            let columns = group.first.map { reader.resolved(for: $0).columns } ?? reader.columns
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
