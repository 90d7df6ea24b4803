/// A commit to a coordinator's stores, as live queries hear of it: which entities it touched,
/// or `nil` when that is unknown (another process's commit).
struct StoreCommit: Sendable {
    var entityNames: Set<String>?

    /// Whether the commit may have touched any of `entities`.
    func mayTouch(_ entities: Set<String>) -> Bool {
        guard let entityNames else { return true }
        return !entityNames.isDisjoint(with: entities)
    }
}
