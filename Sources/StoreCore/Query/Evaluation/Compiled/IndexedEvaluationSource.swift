/// Something the compiled evaluator reads by property index: a snapshot, a managed object, or
/// anything else laid out by an entity.
///
/// A source whose ``indexedEntity`` is `nil` is read by name only, through the tree-walking
/// evaluator (its compiled form is the by-name one).
///
/// For example:
///
/// ```swift
/// let snapshot: StoreSnapshot = …
/// if let index = snapshot.entity.propertyIndexes["magnitude"] {
///     snapshot.indexedValue(at: index)        // .double(6.5)
/// }
/// ```
package protocol IndexedEvaluationSource {
    /// The entity whose property indexes ``indexedValue(at:)`` takes, or `nil` when the source
    /// has no such layout.
    var indexedEntity: EntityDescription? { get }
    /// The identity of ``indexedEntity``, which callers compare row by row to notice a change
    /// of entity (a source that can give it without retaining the entity should).
    var indexedEntityIdentity: ObjectIdentifier? { get }
    /// The value of the attribute at `index` of ``indexedEntity`` (`.null` when not held), as
    /// ``PredicateEvaluationSource/evaluationValue(forKey:)`` gives it for that attribute's name.
    func indexedValue(at index: Int) -> StoreValue
}

extension IndexedEvaluationSource {
    package var indexedEntityIdentity: ObjectIdentifier? { indexedEntity.map(ObjectIdentifier.init) }
}

extension StoreSnapshot: IndexedEvaluationSource {
    package var indexedEntity: EntityDescription? { entity }

    @inline(__always)
    package func indexedValue(at index: Int) -> StoreValue {
        heldProperties.contains(index) ? values[index] : .null
    }
}

extension ManagedObject: IndexedEvaluationSource {
    package var indexedEntity: EntityDescription? { entity }

    package func indexedValue(at index: Int) -> StoreValue { attributeValue(at: index) }
}

/// A source read by name only: what the compiled evaluator takes when its caller has nothing
/// laid out by an entity (results of another evaluation, rows from several stores).
package struct NamedEvaluationSource: IndexedEvaluationSource {
    package let source: any PredicateEvaluationSource

    package init(_ source: any PredicateEvaluationSource) { self.source = source }

    package var indexedEntity: EntityDescription? { nil }

    package func indexedValue(at index: Int) -> StoreValue { .null }
}
