import Foundation

/// An entity the source model has and the destination model lacks, beside one the destination
/// adds, with the same stored attributes and relationships: most likely the same entity renamed
/// without a ``EntityDescription/renamingIdentifier``. Lightweight migration (Core Data's too)
/// cannot know it is a rename: it drops the source entity's objects and starts the new entity
/// empty. Inference records each such pair in ``MappingModel/likelyEntityRenames``, printing the
/// mapping shows them, migration logs them (label `stowage.migration`), and a store description
/// with ``PersistentStoreDescription/shouldRefuseLikelyEntityRenames`` refuses the migration.
///
/// "The same" means: the same stored (non-transient) property names, inherited ones included,
/// each an attribute of the same ``AttributeType`` or a relationship of the same kind (to-one or
/// to-many) whose destination is the same entity — the one the source relationship pointed at,
/// as the mapping carries it over (or the pair itself, for a relationship to its own entity).
/// Optionality, default values, validation rules, ordering, delete rules, indexes and
/// constraints may differ; an entity without stored properties is never taken for a rename.
///
/// For example:
///
/// ```swift
/// let mapping = try MappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
/// for rename in mapping.likelyEntityRenames {
///     print(rename)   // "Person was removed and Human added with the same attributes and relationships: …"
/// }
/// ```
public struct LikelyEntityRename: Sendable, Hashable, CustomStringConvertible {
    /// The source model's entity whose objects would be dropped.
    public let sourceEntityName: String
    /// The destination model's entity that would start empty.
    public let destinationEntityName: String

    /// A likely rename of `sourceEntityName` to `destinationEntityName`.
    public init(sourceEntityName: String, destinationEntityName: String) {
        self.sourceEntityName = sourceEntityName
        self.destinationEntityName = destinationEntityName
    }

    public var description: String {
        "\(sourceEntityName) was removed and \(destinationEntityName) added with the same attributes and relationships: "
            + "if \(destinationEntityName) is \(sourceEntityName) renamed, set \(destinationEntityName)'s renamingIdentifier to "
            + "\"\(sourceEntityName)\"; as the models are, \(sourceEntityName)'s objects are dropped and \(destinationEntityName) starts empty"
    }
}

extension MappingInference {
    /// Every pair of a removed and an added entity with the same stored properties (see
    /// ``LikelyEntityRename``), in the destination model's entity order.
    func likelyEntityRenames(entityNames: [String: String]) -> [LikelyEntityRename] {
        let carried = Set(entityNames.values)
        let removed = source.entities.filter { !carried.contains($0.name) }
        let added = destination.entities.filter { entityNames[$0.name] == nil }
        var renames: [LikelyEntityRename] = []
        for new in added {
            for old in removed where Self.hasSameStoredProperties(old, new, entityNames: entityNames) {
                renames.append(LikelyEntityRename(sourceEntityName: old.name, destinationEntityName: new.name))
            }
        }
        return renames
    }

    private static func hasSameStoredProperties(_ old: EntityDescription, _ new: EntityDescription, entityNames: [String: String]) -> Bool {
        let oldProperties = old.properties.filter { !$0.isTransient }
        let newProperties = new.properties.filter { !$0.isTransient }
        guard !newProperties.isEmpty, oldProperties.count == newProperties.count else { return false }
        let oldByName = Dictionary(oldProperties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        return newProperties.allSatisfy { property in
            switch (oldByName[property.name], property) {
            case (let was as AttributeDescription, let attribute as AttributeDescription):
                return was.attributeType == attribute.attributeType
            case (let was as RelationshipDescription, let relationship as RelationshipDescription):
                guard was.isToMany == relationship.isToMany else { return false }
                let target = relationship.destinationEntityName
                return entityNames[target] == was.destinationEntityName
                    || (target == new.name && was.destinationEntityName == old.name)
            default:
                return false
            }
        }
    }
}
