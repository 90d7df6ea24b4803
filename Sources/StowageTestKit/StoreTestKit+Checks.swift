import Foundation
import StoreCore

extension StoreTestKit {
    /// Objects with every attribute type, to-one, to-many, ordered and many-to-many
    /// relationships and sub-entities saved and read back after a reopen; updates, reordering,
    /// cascade, nullify and deny delete rules.
    public func checkConformance() {
        let suite = ConformanceSuite(kit: self)
        suite.testInsertedObjectsAndRelationshipsSurviveReopening()
        suite.testUpdatesAndDeleteRulesSurviveReopening()
    }

    /// The shared query-case table (``QueryCases``): every predicate gives the set of objects
    /// every other store gives (or the same error), after a reopen; and requests that cannot run
    /// (a predicate literal that does not parse, an unknown key) are refused even by an empty store;
    /// requests of one shape with other constants, run one after another, each give their own
    /// results (`QueryShapeSuite`: SQL stores reuse a shape's SQL).
    public func checkQueryCases() {
        ConformanceSuite(kit: self).testTheSharedQueryTableMatchesAfterReopening()
        RefusedQuerySuite(kit: self).run()
        QueryShapeSuite(kit: self).run()
    }

    /// `#Predicate` and `SortDescriptor` requests: the same posts as their format-string twins,
    /// and constructs with no store form refused with `FetchError.untranslatablePredicate`.
    public func checkTypedPredicates() {
        TypedPredicateSuite(kit: self).run()
    }

    /// Batched fetches (`fetchBatched`): every object in a plain fetch's order, whether a
    /// batch's rows are consecutive, have gaps, are of one sub-entity or sorted otherwise;
    /// unsaved changes folded in; a finished batch's objects let go.
    public func checkBatchedFetching() {
        BatchedFetchingSuite(kit: self).run()
    }

    /// The import-and-dedupe pattern: constraint conflicts resolved on save by the merge policy
    /// (object-trump, store-trump, error), duplicates inside one save, relationships merged.
    public func checkConstraintConflicts() {
        ConstraintConflictSuite(kit: self).run()
    }

    /// Uniqueness constraints and validation rules: a save that breaks one throws the right
    /// error and saves nothing.
    public func checkConstraints() {
        ConformanceSuite(kit: self).testUniquenessAndValidationFailuresSaveNothing()
    }

    /// Batch insert (dictionaries, handlers, upserts), update and delete requests: results,
    /// defaults, delete rules, limits, merging into live contexts.
    public func checkBatchRequests() {
        BatchRequestSuite(kit: self).run()
    }

    /// Persistent history: one transaction per save and batch request, fetched after a token,
    /// narrowed, shaped by result type, merged and deleted. Stores without history tracking are
    /// expected to refuse history requests with `StoreError.unsupportedRequest`.
    public func checkHistory() {
        HistorySuite(kit: self).run()
    }

    /// Fetched results controllers, live queries, query generations, inaccessible faults and
    /// undo, on this store.
    public func checkObservation() {
        ObservationSuite(kit: self).run()
    }

    /// Optimistic locking between two contexts under every merge policy, and conflicts among
    /// many deleted objects named exactly.
    public func checkMergePolicies() {
        MergePolicySuite(kit: self).run()
    }

    /// Transient relationships (to-one and to-many, with inverses) and attributes: held in
    /// memory, never written, readable and settable on objects read back from the store (their
    /// inverses kept in step, prefetching through them a no-op), kept by a refresh that merges
    /// changes and disposed of when the object is turned into a fault, as in Core Data.
    public func checkTransientProperties() {
        TransientPropertySuite(kit: self).run()
    }
}
