import Foundation
import StoreCore

extension SyncSession {
    /// Reads `properties` of `object` into `record`, relationships as global identities
    /// (`map` must hold the destinations' rows; a destination without a global identity reads as none).
    static func read(
        _ object: ManagedObject, attributes: [String], toOnes: [String], memberLists: [String],
        into record: inout SyncRecord, map: SyncIdentityMap
    ) throws -> [String: [String]] {
        for key in attributes { record.attributes[key] = try object.storeValue(forKey: key) }
        for key in toOnes {
            if case .objectID(let id) = try object.storeValue(forKey: key) {
                record.toOnes[key] = .some(try map.globalID(for: id))
            } else {
                record.toOnes[key] = .some(nil)
            }
        }
        var members: [String: [String]] = [:]
        for key in memberLists {
            members[key] = try memberObjects(of: object, key).compactMap { try map.globalID(for: $0.objectID) }
        }
        return members
    }

    /// The objects with these IDs that still exist: those of entities written as rows as their
    /// stored values (no relationships to follow), the others as managed objects.
    func read(_ ids: [ManagedObjectID], in context: ManagedObjectContext) throws -> (rows: [ManagedObjectID: StoreSnapshot], objects: [ManagedObjectID: ManagedObject]) {
        let rowIDs = ids.filter { plan.plan(for: $0.entityName)?.insertsAsRows == true }
        let others = rowIDs.isEmpty ? ids : ids.filter { plan.plan(for: $0.entityName)?.insertsAsRows != true }
        return (try Self.rows(rowIDs, in: context), try Self.objects(others, in: context))
    }

    /// The stored values of these objects of entities written as rows (``SyncEntityPlan/insertsAsRows``:
    /// no relationships), read from the store without making managed objects, by ID; those no
    /// longer there are left out. `context` has no unsaved changes to them (the engine's own).
    static func rows(_ ids: some Sequence<ManagedObjectID>, in context: ManagedObjectContext) throws -> [ManagedObjectID: StoreSnapshot] {
        let unique = Array(Set(ids))
        guard !unique.isEmpty else { return [:] }
        guard let coordinator = context.persistentStoreCoordinator else { throw SyncError(.storeNotReady, "the engine's context has no coordinator") }
        var found: [ManagedObjectID: StoreSnapshot] = [:]
        found.reserveCapacity(unique.count)
        for snapshot in try coordinator.snapshots(for: unique.sorted { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) }) { found[snapshot.objectID] = snapshot }
        return found
    }

    /// The record of an object of an entity written as rows, from its stored values: every
    /// attribute (`updated` nil), or those among `updated`.
    static func record(_ row: StoreSnapshot, globalID: String, plan entityPlan: SyncEntityPlan, updated: Set<String>?) -> SyncRecord {
        var record = SyncRecord(globalID: globalID, entityName: entityPlan.name, kind: .upsert)
        record.isInsert = updated == nil
        record.attributes.reserveCapacity(entityPlan.attributes.count)
        for (key, index) in zip(entityPlan.attributes, entityPlan.attributeIndexes) where updated?.contains(key) ?? true {
            record.attributes[key] = row[index]
        }
        return record
    }

    /// The destinations of `object`'s to-one relationships and members of its member lists.
    static func destinations(of object: ManagedObject, plan: SyncEntityPlan) throws -> [ManagedObjectID] {
        var ids: [ManagedObjectID] = []
        for key in plan.toOnes {
            if case .objectID(let id) = try object.storeValue(forKey: key) { ids.append(id) }
        }
        for key in plan.memberLists { ids += try memberObjects(of: object, key).map(\.objectID) }
        return ids
    }

    static func memberObjects(of object: ManagedObject, _ key: String) throws -> [ManagedObject] {
        switch try object.value(forKey: key) {
        case let set as Set<ManagedObject>: Array(set)
        case let list as [ManagedObject]: list
        default: []
        }
    }

    /// Writes `record`'s values into `object`, skipping `keep` (properties with local changes
    /// still to push), only where they differ. Member lists are set whole (`members`) or edited
    /// (`addedMembers`/`removedMembers`). Returns whether anything changed.
    @discardableResult
    static func write(
        _ record: SyncRecord, into object: ManagedObject, keep: Set<String>, map: SyncIdentityMap,
        resolve: (String, StoreValue, StoreValue) -> StoreValue = { _, new, _ in new }
    ) throws -> Bool {
        let context = map.context
        var changed = false
        for (key, value) in record.attributes where !keep.contains(key) {
            let current = try object.storeValue(forKey: key)
            let chosen = resolve(key, value, current)
            if chosen != current {
                try object.setStoreValue(chosen, forKey: key)
                changed = true
            }
        }
        for (key, globalID) in record.toOnes where !keep.contains(key) {
            let target = try globalID.flatMap { try map.objectID(for: $0) }
            let current: ManagedObjectID? = if case .objectID(let id) = try object.storeValue(forKey: key) { id } else { nil }
            if target != current {
                try object.setValue(try target.flatMap { try existing($0, in: context) }, forKey: key)
                changed = true
            }
        }
        for (key, globalIDs) in record.members where !keep.contains(key) {
            let wanted = try Set(globalIDs.compactMap { try map.objectID(for: $0) })
            let current = try memberObjects(of: object, key)
            for member in current where !wanted.contains(member.objectID) {
                try object.remove(member, fromRelationship: key)
                changed = true
            }
            let have = Set(current.map(\.objectID))
            for id in wanted where !have.contains(id) {
                guard let member = try existing(id, in: context) else { continue }
                try object.add(member, toRelationship: key)
                changed = true
            }
        }
        for (key, globalIDs) in record.addedMembers {
            let have = Set(try memberObjects(of: object, key).map(\.objectID))
            for id in try globalIDs.compactMap({ try map.objectID(for: $0) }) where !have.contains(id) {
                guard let member = try existing(id, in: context) else { continue }
                try object.add(member, toRelationship: key)
                changed = true
            }
        }
        for (key, globalIDs) in record.removedMembers {
            let have = try memberObjects(of: object, key)
            let gone = Set(try globalIDs.compactMap { try map.objectID(for: $0) })
            for member in have where gone.contains(member.objectID) {
                try object.remove(member, fromRelationship: key)
                changed = true
            }
        }
        return changed
    }
}
