extension ManagedObjectID {
    /// Whether `other` shares this ID's entity-and-store part itself — as every ID a store makes
    /// for one entity does — so a batch of such IDs needs no grouping by entity and store.
    /// `false` does not mean the entities or stores differ (IDs made separately have parts of
    /// their own).
    ///
    /// For example:
    ///
    /// ```swift
    /// if ids.allSatisfy({ $0.sharesEntityAndStore(with: first) }) { /* one table, one query */ }
    /// ```
    package func sharesEntityAndStore(with other: ManagedObjectID) -> Bool { space === other.space }
}
