/// The columns of a dictionary fetch, compiled once per fetch and resolved to property indexes
/// once per entity met.
extension DictionaryFetch {
    /// How one value is read from a row: a column, a group-by key or an aggregate's argument.
    enum ValueRead {
        /// An attribute of the row's entity, by property index.
        case index(Int)
        /// Any other property, by name (a to-one gives its destination's ID).
        case key(String)
        /// Any other expression, by the tree walker.
        case expression(StoreExpression)
    }

    /// A column: a value read from the row (or the group's first row), or an aggregate.
    struct Column {
        enum Kind {
            case value(ValueRead)
            /// An aggregate function and its argument: none (`count:` of rows), or a value per row.
            case aggregate(String, ValueRead?)
        }

        let name: String
        let kind: Kind
        let resultType: AttributeType?

        init(_ column: PropertyToFetch) {
            name = column.name
            switch column {
            case .property(let key):
                kind = .value(Self.compile(.keyPath(key)))
                resultType = nil
            case .expression(let description):
                if case .function(let function, let arguments) = description.expression,
                    CollectionOperator.aggregateFunctionNames.contains(function)
                {
                    kind = .aggregate(function, arguments.first.map(Self.compile))
                } else {
                    kind = .value(Self.compile(description.expression))
                }
                resultType = description.resultType
            }
        }

        private init(name: String, kind: Kind, resultType: AttributeType?) {
            self.name = name
            self.kind = kind
            self.resultType = resultType
        }

        /// A plain key path without dots is read straight from the row.
        private static func compile(_ expression: StoreExpression) -> ValueRead {
            if case .keyPath(let key) = expression, !key.utf8.contains(UInt8(ascii: ".")) { return .key(key) }
            return .expression(expression)
        }

        var isAggregate: Bool {
            if case .aggregate = kind { return true }
            return false
        }

        /// The column with keys naming attributes of the compiler's entity read by index.
        func resolved<Source>(by compiler: PredicateCompiler<Source>) -> Column {
            func resolve(_ read: ValueRead) -> ValueRead {
                guard case .key(let key) = read, let index = compiler.attributeIndex(key) else { return read }
                return .index(index)
            }
            switch kind {
            case .value(let read): return Column(name: name, kind: .value(resolve(read)), resultType: resultType)
            case .aggregate(let function, let argument):
                return Column(name: name, kind: .aggregate(function, argument.map(resolve)), resultType: resultType)
            }
        }
    }

    /// The columns resolved for rows of one entity.
    final class Resolution {
        let columns: [Column]
        let groupBy: [Column]
        /// The argument of each aggregate column, in column order.
        let aggregateArguments: [ValueRead?]

        init(columns: [Column], groupBy: [Column]) {
            self.columns = columns
            self.groupBy = groupBy
            var arguments: [ValueRead?] = []
            for case .aggregate(_, let argument) in columns.map(\.kind) { arguments.append(argument) }
            aggregateArguments = arguments
        }
    }

    /// Reads columns from rows: by index where resolved, else by name or by the tree walker.
    struct ColumnReader<Source: IndexedEvaluationSource> {
        let columns: [Column]
        let groupBy: [Column]
        let evaluator: PredicateEvaluator
        let fallbackSource: (Source) -> any PredicateEvaluationSource
        private var resolutions = PerEntity<Resolution>()

        init(columns: [Column], groupBy: [Column], evaluator: PredicateEvaluator, fallbackSource: @escaping (Source) -> any PredicateEvaluationSource) {
            self.columns = columns
            self.groupBy = groupBy
            self.evaluator = evaluator
            self.fallbackSource = fallbackSource
        }

        /// The columns resolved for rows laid out like `source`.
        mutating func resolved(for source: Source) -> Resolution {
            if let known = resolutions.latest(forIdentity: source.indexedEntityIdentity) { return known }
            let columns = self.columns, groupBy = self.groupBy, evaluator = self.evaluator, fallbackSource = self.fallbackSource
            return resolutions.value(for: source.indexedEntity) { entity in
                let compiler = PredicateCompiler(entity: entity, evaluator: evaluator, fallbackSource: fallbackSource)
                return Resolution(columns: columns.map { $0.resolved(by: compiler) }, groupBy: groupBy.map { $0.resolved(by: compiler) })
            }
        }

        /// A column's value for one row (an aggregate: over that row alone).
        func value(of column: Column, on source: Source) throws -> StoreValue {
            switch column.kind {
            case .value(.index(let index)):
                return converted(source.indexedValue(at: index), column)
            case .value(.key(let key)):
                return converted(try fallbackSource(source).evaluationValue(forKey: key).storeValue, column)
            case .value(.expression(let expression)):
                return converted(try evaluator.value(of: expression, on: fallbackSource(source)).storeValue, column)
            case .aggregate(let function, let argument):
                var accumulator = AggregateAccumulator(function)
                try add(argument, of: source, to: &accumulator)
                return try result(of: accumulator, column)
            }
        }

        /// Adds a row's values of an aggregate's argument: 1 for a count of rows, the
        /// attribute's value, or each element of a collection an expression gives.
        @inline(__always)
        func add(_ argument: ValueRead?, of source: Source, to accumulator: inout AggregateAccumulator) throws {
            switch argument {
            case nil:
                accumulator.add(.integer(1))
            case .index(let index)?:
                accumulator.add(source.indexedValue(at: index))
            case .key(let key)?:
                // A to-many collection reads as NULL here, and is skipped.
                accumulator.add(try fallbackSource(source).evaluationValue(forKey: key).storeValue)
            case .expression(let expression)?:
                switch try evaluator.value(of: expression, on: fallbackSource(source)) {
                case .collection(let items): for item in items { accumulator.add(item.storeValue) }
                case let single: accumulator.add(single.storeValue)
                }
            }
        }

        /// An aggregate's result, converted to the column's result type.
        func result(of accumulator: AggregateAccumulator, _ column: Column) throws -> StoreValue {
            converted(try accumulator.result(), column)
        }

        private func converted(_ value: StoreValue, _ column: Column) -> StoreValue {
            guard let type = column.resultType else { return value }
            return type.coerce(value) ?? value
        }
    }
}
