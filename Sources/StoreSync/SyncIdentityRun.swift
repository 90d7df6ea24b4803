import StoreCore

/// Objects of one entity with consecutive keys whose global identities are one base and
/// consecutive numbers (`base#number`): one `StowageSyncIdentity` row stands for all of them.
///
/// The engine gives such identities to new objects of entities written as rows
/// (``SyncEntityPlan/insertsAsRows``: no relationships), so moving many of them writes one
/// identity row per run instead of one per object. Identities of this form live in runs only
/// (a member alone is a run of one): whether an entity is written as rows depends on the model
/// alone, so every store writes its objects this way. A run is never shortened: a deleted member's
/// key is never handed out again by its store, so the run keeps naming it (pulls learn such
/// deletions from the object's own history, see `SyncSession.readServerChanges`).
///
/// For example, the run `base` "0190…", entity "Setting", keys 40…42, first number 7 names
/// "0190…#7" (key 40), "0190…#8" (key 41) and "0190…#9" (key 42).
struct SyncIdentityRun: Hashable {
    let base: String
    let entityName: String
    let firstKey: Int64
    let lastKey: Int64
    let firstNumber: Int64

    /// The global identity of the member with this key, if the run holds it.
    func globalID(forKey key: Int64) -> String? {
        guard firstKey <= key, key <= lastKey else { return nil }
        return SyncGlobalID.member(base, firstNumber + (key - firstKey))
    }

    /// The key of the member with this number, if the run holds it.
    func key(forNumber number: Int64) -> Int64? {
        guard firstNumber <= number, number - firstNumber <= lastKey - firstKey else { return nil }
        return firstKey + (number - firstNumber)
    }

    /// Every member's global identity and key.
    var members: some Sequence<(globalID: String, key: Int64)> {
        (firstKey...lastKey).lazy.map { key in (SyncGlobalID.member(base, firstNumber + (key - firstKey)), key) }
    }

    /// `identities` (in order) as runs where they are consecutive members of one base with
    /// consecutive keys of one entity (a member alone is a run of one), and the rest as single
    /// identities.
    static func group(_ identities: [(globalID: String, object: SyncIdentityMap.ObjectKey)]) -> (runs: [SyncIdentityRun], singles: [(globalID: String, object: SyncIdentityMap.ObjectKey)]) {
        var runs: [SyncIdentityRun] = []
        var singles: [(globalID: String, object: SyncIdentityMap.ObjectKey)] = []
        var open: SyncIdentityRun?
        func close() {
            if let run = open { runs.append(run) }
            open = nil
        }
        for identity in identities {
            guard let (base, number) = SyncGlobalID.parse(identity.globalID) else {
                close()
                singles.append(identity)
                continue
            }
            if let run = open, run.base == base, run.entityName == identity.object.entityName,
               identity.object.key == run.lastKey + 1, number == run.firstNumber + (run.lastKey - run.firstKey) + 1 {
                open = SyncIdentityRun(base: run.base, entityName: run.entityName, firstKey: run.firstKey, lastKey: identity.object.key, firstNumber: run.firstNumber)
                continue
            }
            close()
            open = SyncIdentityRun(base: base, entityName: identity.object.entityName, firstKey: identity.object.key, lastKey: identity.object.key, firstNumber: number)
        }
        close()
        return (runs, singles)
    }
}

/// The two forms of a global identity: a UUID alone (an object with an identity row of its own),
/// or a run's base UUID and a member number, `base#number` (see ``SyncIdentityRun``).
enum SyncGlobalID {
    static func member(_ base: String, _ number: Int64) -> String { "\(base)#\(number)" }

    /// The base and number of a run member's identity; nil for an identity of the other form.
    static func parse(_ globalID: String) -> (base: String, number: Int64)? {
        let bytes = globalID.utf8
        guard let mark = bytes.lastIndex(of: UInt8(ascii: "#")), let number = Int64(Substring(bytes[bytes.index(after: mark)...])) else { return nil }
        return (String(Substring(bytes[..<mark])), number)
    }
}
