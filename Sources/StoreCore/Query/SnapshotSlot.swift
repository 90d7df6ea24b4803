/// A snapshot read where it lies in a table of rows, for the length of one fetch: evaluating,
/// sorting and grouping through slots copies no snapshot (a copy retains its entity, values and
/// lists), and only the rows a fetch returns are copied out.
///
/// A slot is only valid while the table it points into is neither changed nor released; a
/// ``SnapshotFetch`` makes slots inside `withUnsafeBufferPointer` and drops them before returning.
///
/// For example:
///
/// ```swift
/// rows.withUnsafeBufferPointer { buffer in
///     for position in buffer.indices {
///         guard let slot = SnapshotSlot(buffer, position) else { continue }   // a deleted row
///         slot.indexedValue(at: magnitude)
///     }
/// }
/// ```
struct SnapshotSlot: IndexedEvaluationSource {
    private let pointer: UnsafePointer<StoreSnapshot?>
    /// The identity of the snapshot's entity.
    let entityIdentity: ObjectIdentifier

    /// The slot of the row at `position`, or `nil` for a deleted row.
    @inline(__always)
    init?(_ buffer: UnsafeBufferPointer<StoreSnapshot?>, _ position: Int) {
        // Optional chaining reads the row in place; comparing it with nil would copy it.
        guard let base = buffer.baseAddress, buffer.indices.contains(position),
            let identity = base[position]?.entityIdentity
        else { return nil }
        pointer = base + position
        entityIdentity = identity
    }

    /// A copy of the snapshot.
    var snapshot: StoreSnapshot? { pointer.pointee }

    var objectID: ManagedObjectID? { pointer.pointee?.objectID }

    var indexedEntity: EntityDescription? { pointer.pointee?.entity }

    var indexedEntityIdentity: ObjectIdentifier? { entityIdentity }

    @inline(__always)
    func indexedValue(at index: Int) -> StoreValue { pointer.pointee?.indexedValue(at: index) ?? .null }
}

extension StoreSnapshot {
    /// The identity of the snapshot's entity.
    fileprivate var entityIdentity: ObjectIdentifier { ObjectIdentifier(entity) }
}

/// What the tree walker reads for a slot whose row is gone: nothing (slots are made for live
/// rows only, so fetches never meet one).
struct VanishedRowSource: PredicateEvaluationSource {
    var evaluationObjectID: ManagedObjectID? { nil }
    func evaluationValue(forKey key: String) throws -> EvaluatedValue {
        throw FetchError(.invalidKeyPath, "the row was removed while '\(key)' was read")
    }
}
