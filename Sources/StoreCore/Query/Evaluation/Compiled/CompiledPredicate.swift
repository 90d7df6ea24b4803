/// A predicate compiled once per fetch and evaluated on many sources: for each entity the
/// sources are laid out by (the fetched entity, each sub-entity), the predicate is compiled
/// once by ``PredicateCompiler`` into a closure over that entity's property indexes.
///
/// Answers and errors are the tree-walking ``PredicateEvaluator``'s, for every predicate.
///
/// For example:
///
/// ```swift
/// var filter = CompiledPredicate<StoreSnapshot>(predicate) { snapshot in
///     SnapshotSource(snapshot: snapshot, model: model, resolve: { graph[$0] })
/// }
/// let matches = try snapshots.filter { try filter.evaluate($0) }
/// ```
package struct CompiledPredicate<Source: IndexedEvaluationSource> {
    package typealias Test = (Source) throws -> Bool

    package let predicate: StorePredicate
    private let evaluator: PredicateEvaluator
    private let fallbackSource: (Source) -> any PredicateEvaluationSource
    /// The tests compiled so far, one per entity met (a fetch meets the entity and its sub-entities).
    private var tests = PerEntity<Test>()

    /// Prepares `predicate`; nothing is compiled until a source is evaluated.
    ///
    /// - Parameters:
    ///   - evaluator: the tree walker for what is not compiled (its variables are used).
    ///   - fallbackSource: the by-name view of a source, for the tree walker.
    package init(
        _ predicate: StorePredicate, evaluator: PredicateEvaluator = PredicateEvaluator(),
        fallbackSource: @escaping (Source) -> any PredicateEvaluationSource
    ) {
        self.predicate = predicate
        self.evaluator = evaluator
        self.fallbackSource = fallbackSource
    }

    /// Whether `source` satisfies the predicate.
    ///
    /// - Throws: what ``PredicateEvaluator/evaluate(_:on:)`` throws for the same source.
    @inline(__always)
    package mutating func evaluate(_ source: Source) throws -> Bool {
        try test(for: source.indexedEntity)(source)
    }

    /// The compiled test for sources laid out by `entity` (`nil`: read by name).
    ///
    /// Complexity: O(1) once compiled for `entity`; compiling is linear in the predicate's size.
    package mutating func test(for entity: EntityDescription?) -> Test {
        if let test = tests.latest(for: entity) { return test }
        let predicate = self.predicate, evaluator = self.evaluator, fallbackSource = self.fallbackSource
        return tests.value(for: entity) { entity in
            PredicateCompiler(entity: entity, evaluator: evaluator, fallbackSource: fallbackSource).compile(predicate)
        }
    }
}
