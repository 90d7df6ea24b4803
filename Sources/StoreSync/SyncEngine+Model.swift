import Foundation
import StoreCore

extension SyncEngine {
    /// The entity that maps each synced object to its global identity (in the local store and in
    /// the server store alike).
    public static let identityEntityName = "StowageSyncIdentity"
    /// The entity that holds the engine's tokens (one row in a local store, one row per client in
    /// the server store).
    public static let stateEntityName = "StowageSyncState"

    /// The two entities the engine keeps its bookkeeping in. Add them to the model of the local
    /// stores *and* of the server store; a store without them cannot sync (``SyncError/Code/modelNotPrepared``).
    ///
    /// Each call returns new descriptions (an entity belongs to one model).
    ///
    /// For example:
    ///
    /// ```swift
    /// let model = try ManagedObjectModel {
    ///     EntityDescription("Note") { .attribute("text", .string) }
    ///     SyncEngine.modelEntities()
    /// }
    /// ```
    public static func modelEntities() -> [EntityDescription] {
        [
            EntityDescription(
                identityEntityName,
                indexes: [
                    FetchIndexDescription(name: "byGlobalID", elements: [.init("globalID")]),
                    FetchIndexDescription(name: "byObject", elements: [.init("objectKey"), .init("entityName")]),
                    FetchIndexDescription(name: "byRun", elements: [.init("entityName"), .init("lastKey")]),
                ]
            ) {
                // A row names one object (globalID, entityName, objectKey), or a run of objects
                // with consecutive keys objectKey…lastKey named globalID#firstNumber… (SyncIdentityRun).
                AttributeDescription(name: "globalID", type: .string, isOptional: false, defaultValue: "", preservesValueInHistoryOnDeletion: true)
                AttributeDescription(name: "entityName", type: .string, isOptional: false, defaultValue: "", preservesValueInHistoryOnDeletion: true)
                AttributeDescription(name: "objectKey", type: .integer64, isOptional: false, defaultValue: .integer(0))
                AttributeDescription(name: "lastKey", type: .integer64)
                AttributeDescription(name: "firstNumber", type: .integer64)
                AttributeDescription(name: "memberShadow", type: .string)
            },
            EntityDescription(stateEntityName) {
                AttributeDescription(name: "key", type: .string, isOptional: false, defaultValue: "")
                AttributeDescription(name: "clientID", type: .string)
                AttributeDescription(name: "serverStoreID", type: .string)
                AttributeDescription(name: "pushedTransaction", type: .integer64)
                AttributeDescription(name: "pulledTransaction", type: .integer64)
            },
        ]
    }

    static func isBookkeeping(_ entityName: String) -> Bool {
        entityName == identityEntityName || entityName == stateEntityName
    }
}

/// What of an entity travels: its stored attributes, its to-one relationships (as global
/// identities), and the members of its to-many relationships whose inverse is not a to-one
/// (the others travel as the inverse to-one of each member).
struct SyncEntityPlan: Sendable {
    let name: String
    let attributes: [String]
    /// The index of each of ``attributes`` in the entity's snapshots.
    let attributeIndexes: [Int]
    let toOnes: [String]
    let memberLists: [String]
    /// Whether new objects are written as rows with a save, without managed objects
    /// (``StoreRowInsertion``): entities with no relationships, uniqueness constraints, derived or
    /// composite attributes (every stored attribute then travels) that no relationship leads to
    /// (no other record can name one before its save gives it a key).
    let insertsAsRows: Bool

    init(_ entity: EntityDescription, isDestination: Bool) {
        name = entity.name
        insertsAsRows = !isDestination && StoreRowInsertion.accepts(entity) && !entity.attributes.contains { attribute in
            if case .composite = attribute.attributeType { return true }
            return false
        }
        attributes = entity.attributes.filter { attribute in
            if case .composite = attribute.attributeType { return false }
            return !attribute.isTransient && !attribute.isDerived
        }.map(\.name)
        attributeIndexes = attributes.compactMap { entity.propertyIndexes[$0] }
        let relationships = entity.relationships.filter { !$0.isTransient }
        toOnes = relationships.filter { !$0.isToMany }.map(\.name)
        memberLists = relationships.filter { $0.isToMany && ($0.inverseRelationship?.isToMany ?? true) }.map(\.name)
    }

    /// The synced properties among `names` (a history change's updated properties).
    func synced(_ names: Set<String>) -> (attributes: [String], toOnes: [String], memberLists: [String]) {
        (attributes.filter(names.contains), toOnes.filter(names.contains), memberLists.filter(names.contains))
    }
}

/// The entities that sync and how; checked once when the engine is made.
struct SyncModelPlan: Sendable {
    let entities: [String: SyncEntityPlan]

    init(model: ManagedObjectModel, excluding excluded: Set<String>) throws(SyncError) {
        for name in [SyncEngine.identityEntityName, SyncEngine.stateEntityName] where model.entitiesByName[name] == nil {
            throw SyncError(.modelNotPrepared, entity: name, "the model has no entity \(name): add SyncEngine.modelEntities() to it (docs/sync.md)")
        }
        var plans: [String: SyncEntityPlan] = [:]
        let destinations = Set(model.entities.flatMap { $0.relationships.map(\.destinationEntityName) })
        for entity in model.entities where !entity.isAbstract && !SyncEngine.isBookkeeping(entity.name) && !excluded.contains(entity.name) {
            if let ordered = entity.relationships.first(where: { $0.isOrdered && !$0.isTransient }) {
                throw SyncError(.unsupportedModel, entity: entity.name, "ordered relationship \(entity.name).\(ordered.name) cannot sync yet: its order would not converge (docs/sync.md)")
            }
            if let target = entity.relationships.first(where: { !$0.isTransient && excluded.contains($0.destinationEntityName) }) {
                throw SyncError(.unsupportedModel, entity: entity.name, "relationship \(entity.name).\(target.name) leads to \(target.destinationEntityName), which is excluded from sync")
            }
            var isDestination = false
            var lineage: EntityDescription? = entity
            while let current = lineage, !isDestination {
                isDestination = destinations.contains(current.name)
                lineage = current.superentity
            }
            plans[entity.name] = SyncEntityPlan(entity, isDestination: isDestination)
        }
        entities = plans
    }

    func plan(for entityName: String) -> SyncEntityPlan? { entities[entityName] }
}
