/// The keys of sort descriptors read by property index where a key path names one of the
/// entity's own attributes, and by the tree walker otherwise — resolved once per entity, as
/// ``CompiledPredicate`` resolves predicates.
///
/// The keys are those ``SortComparator/keys(for:)`` gives for the same source.
///
/// For example:
///
/// ```swift
/// var sortKeys = CompiledSortKeys<StoreSnapshot>(request.sortDescriptors) { SnapshotSource(snapshot: $0, model: model, resolve: resolve) }
/// var keys: [StoreValue] = []
/// for snapshot in matches { try sortKeys.appendKeys(of: snapshot, to: &keys) }
/// let sorted = SortComparator(request.sortDescriptors).sort(matches, flatKeys: keys)
/// ```
package struct CompiledSortKeys<Source: IndexedEvaluationSource> {
    /// How one key is read.
    private enum Reader {
        case index(Int)
        case keyPath(String)
    }

    private let descriptors: [StoreSortDescriptor]
    private let evaluator = PredicateEvaluator()
    private let fallbackSource: (Source) -> any PredicateEvaluationSource
    private var readers = PerEntity<[Reader]>()

    package init(_ descriptors: [StoreSortDescriptor], fallbackSource: @escaping (Source) -> any PredicateEvaluationSource) {
        self.descriptors = descriptors
        self.fallbackSource = fallbackSource
    }

    /// Appends the keys of `source`, one per descriptor, to `keys`.
    ///
    /// - Throws: what ``SortComparator/keys(for:)`` throws for the same source.
    package mutating func appendKeys(of source: Source, to keys: inout [StoreValue]) throws {
        let entity = source.indexedEntity
        let readers = readers(for: entity)
        var named: (any PredicateEvaluationSource)?
        for reader in readers {
            switch reader {
            case .index(let index):
                keys.append(source.indexedValue(at: index))
            case .keyPath(let path):
                let view = named ?? fallbackSource(source)
                named = view
                keys.append(try evaluator.value(of: .keyPath(path), on: view).storeValue)
            }
        }
    }

    private mutating func readers(for entity: EntityDescription?) -> [Reader] {
        if let known = readers.latest(for: entity) { return known }
        let descriptors = self.descriptors, evaluator = self.evaluator, fallbackSource = self.fallbackSource
        return readers.value(for: entity) { entity in
            let compiler = PredicateCompiler<Source>(entity: entity, evaluator: evaluator, fallbackSource: fallbackSource)
            return descriptors.map { descriptor in
                compiler.attributeIndex(descriptor.keyPath).map(Reader.index) ?? .keyPath(descriptor.keyPath)
            }
        }
    }
}
