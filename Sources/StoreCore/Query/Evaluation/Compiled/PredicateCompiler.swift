/// Turns a predicate into one closure for sources laid out by one entity: comparisons of the
/// entity's own attributes with constants read the attribute by index and compare it with a
/// constant prepared once; everything else (key paths through relationships, collection
/// operators, `SUBQUERY`, functions, variables) is handed, sub-predicate by sub-predicate, to
/// the tree-walking ``PredicateEvaluator``, so the answers are always the tree walker's.
///
/// For example:
///
/// ```swift
/// let compiler = PredicateCompiler<StoreSnapshot>(entity: quake, evaluator: PredicateEvaluator()) { snapshot in
///     SnapshotSource(snapshot: snapshot, model: model, resolve: { graph[$0] })
/// }
/// let test = compiler.compile(try StorePredicate(format: "magnitude > 5 AND region.name == 'Alaska'"))
/// try test(snapshot)   // the first clause by index, the second by the tree walker
/// ```
struct PredicateCompiler<Source: IndexedEvaluationSource> {
    typealias Test = (Source) throws -> Bool

    /// The entity whose property indexes the sources follow; `nil` compiles everything to the tree walker.
    let entity: EntityDescription?
    /// The tree walker that evaluates what is not compiled (and its `MATCHES` cache).
    let evaluator: PredicateEvaluator
    /// The by-name view of a source, for the tree walker.
    let fallbackSource: (Source) -> any PredicateEvaluationSource

    /// The predicate as one closure; it throws what the tree walker would throw, when it would.
    func compile(_ predicate: StorePredicate) -> Test {
        switch predicate {
        case .constant(let value):
            return { _ in value }
        case .not(let inner):
            let test = compile(inner)
            return { try !test($0) }
        case .and(let parts):
            return all(parts.map(compile))
        case .or(let parts):
            return any(parts.map(compile))
        case .comparison(let comparison):
            return compile(comparison) ?? treeWalking(predicate)
        }
    }

    /// True when every test is, evaluated in order until one is false.
    private func all(_ tests: [Test]) -> Test {
        guard let first = tests.first else { return { _ in true } }
        if tests.count == 1 { return first }
        let rest = all(Array(tests.dropFirst()))
        return { try first($0) && rest($0) }
    }

    /// True when any test is, evaluated in order until one is true.
    private func any(_ tests: [Test]) -> Test {
        guard let first = tests.first else { return { _ in false } }
        if tests.count == 1 { return first }
        let rest = any(Array(tests.dropFirst()))
        return { try first($0) || rest($0) }
    }

    /// The predicate evaluated by the tree walker on the source's by-name view.
    func treeWalking(_ predicate: StorePredicate) -> Test {
        let evaluator = self.evaluator, fallbackSource = self.fallbackSource
        return { try evaluator.evaluate(predicate, on: fallbackSource($0)) }
    }

    /// The index of `key` when it names one of the entity's own attributes (stored or transient),
    /// read by the tree walker as that attribute's value; `nil` for anything else.
    func attributeIndex(_ key: String) -> Int? {
        // A dotted key is a property only when it names a composite's element (`location.latitude`).
        guard let entity, key != "self", key != "SELF", key.utf8.first != UInt8(ascii: "@"),
            let index = entity.propertyIndexes[key]
        else { return nil }
        switch entity.layout.kinds[index] {
        case .attribute, .transientAttribute: return index
        case .toOne, .toMany: return nil
        }
    }
}
