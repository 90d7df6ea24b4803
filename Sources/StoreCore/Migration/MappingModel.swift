import Foundation

/// How a store saved with one model version becomes a store of another: one ``EntityMapping``
/// per entity of either model, each saying where the destination entity's objects come from
/// and how each of their properties is filled.
///
/// Lightweight migration infers one (``inferredMappingModel(forSourceModel:destinationModel:)``);
/// printing it shows what the migration will do.
///
/// For example:
///
/// ```swift
/// let mapping = try MappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
/// for entity in mapping.entityMappings where entity.mappingType == .transform {
///     print(entity.name, entity.attributeMappings.map(\.name))
/// }
/// print(mapping)   // one line per entity and changed property
/// ```
public struct MappingModel: Sendable, Hashable, CustomStringConvertible {
    /// The entity mappings, in the destination model's entity order, then the removed entities.
    public var entityMappings: [EntityMapping]
    /// Removed entities that look renamed to added ones (the same stored attributes and
    /// relationships, no renaming identifier): inference fills it, so a dry run shows what
    /// would be dropped; see ``LikelyEntityRename``.
    public var likelyEntityRenames: [LikelyEntityRename]

    /// A mapping made of these entity mappings — like building an `NSMappingModel` by hand.
    public init(entityMappings: [EntityMapping], likelyEntityRenames: [LikelyEntityRename] = []) {
        self.entityMappings = entityMappings
        self.likelyEntityRenames = likelyEntityRenames
    }

    /// The entity mappings by name.
    public var entityMappingsByName: [String: EntityMapping] {
        Dictionary(entityMappings.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The mapping that fills a destination entity.
    public func entityMapping(forDestinationEntity name: String) -> EntityMapping? {
        entityMappings.first { $0.destinationEntityName == name }
    }

    /// The mapping that takes a source entity's objects somewhere (or removes them).
    public func entityMapping(forSourceEntity name: String) -> EntityMapping? {
        entityMappings.first { $0.sourceEntityName == name }
    }

    /// True when every entity is copied unchanged: a store needs no data moved, only its
    /// version hashes updated.
    public var isIdentity: Bool { entityMappings.allSatisfy { $0.mappingType == .copy } }

    /// One block per entity mapping, then one `warning:` line per likely rename.
    public var description: String {
        (entityMappings.map(\.description) + likelyEntityRenames.map { "warning: \($0)" }).joined(separator: "\n")
    }
}

/// How the objects of one destination entity are made (or one source entity's objects are
/// dropped), as Core Data's `NSEntityMapping`.
///
/// For example:
///
/// ```swift
/// let notes = mapping.entityMapping(forDestinationEntity: "Note")
/// notes?.mappingType                                     // .transform
/// notes?.attributeMappings.first { $0.name == "text" }?.sourceKey   // "body": renamed
/// ```
public struct EntityMapping: Sendable, Hashable, CustomStringConvertible {
    /// What happens to the entity's objects (Core Data's `NSEntityMappingType`).
    public enum MappingType: Sendable, Hashable {
        /// A new entity: no objects come from the source.
        case add
        /// A removed entity: its objects are not carried over.
        case remove
        /// Objects are copied with every property as it was.
        case copy
        /// Objects are carried over with properties renamed, added, removed or converted.
        case transform
        /// Objects are made by a migration policy of the user's.
        case custom
    }

    /// The mapping's name; inferred mappings are named `<Source>To<Destination>`, as Core Data names them.
    public var name: String
    /// What happens to the entity's objects: added, removed, copied, transformed or made by a
    /// custom policy — Core Data's `NSEntityMapping.mappingType`.
    public var mappingType: MappingType
    /// The source entity, when objects come from one.
    public var sourceEntityName: String?
    /// The destination entity, unless the objects are removed.
    public var destinationEntityName: String?
    /// One mapping per stored attribute of the destination entity.
    public var attributeMappings: [PropertyMapping]
    /// One mapping per stored relationship of the destination entity.
    public var relationshipMappings: [PropertyMapping]
    /// Which source objects the mapping takes (the predicate of Core Data's `sourceExpression`);
    /// `nil` takes every object of the source entity (sub-entities have mappings of their own).
    public var sourcePredicate: StorePredicate?
    /// The name of the ``EntityMigrationPolicy`` subclass that makes the destination objects
    /// (Core Data's `entityMigrationPolicyClassName`); `nil` uses the default policy.
    public var entityMigrationPolicyClassName: String?
    /// The source entity's version hash the mapping was made for (Core Data's `sourceEntityVersionHash`).
    public var sourceEntityVersionHash: Data?
    /// The destination entity's version hash (`destinationEntityVersionHash`).
    public var destinationEntityVersionHash: Data?
    /// Free-form information.
    public var userInfo: [String: String]

    /// An entity mapping, as you would fill in an `NSEntityMapping`: what happens to the objects,
    /// between which entities, and how each destination attribute and relationship is filled.
    public init(
        name: String, mappingType: MappingType, sourceEntityName: String?, destinationEntityName: String?,
        attributeMappings: [PropertyMapping] = [], relationshipMappings: [PropertyMapping] = [],
        sourcePredicate: StorePredicate? = nil, entityMigrationPolicyClassName: String? = nil,
        sourceEntityVersionHash: Data? = nil, destinationEntityVersionHash: Data? = nil, userInfo: [String: String] = [:]
    ) {
        self.sourcePredicate = sourcePredicate
        self.name = name
        self.mappingType = mappingType
        self.sourceEntityName = sourceEntityName
        self.destinationEntityName = destinationEntityName
        self.attributeMappings = attributeMappings
        self.relationshipMappings = relationshipMappings
        self.entityMigrationPolicyClassName = entityMigrationPolicyClassName
        self.sourceEntityVersionHash = sourceEntityVersionHash
        self.destinationEntityVersionHash = destinationEntityVersionHash
        self.userInfo = userInfo
    }

    /// Attribute and relationship mappings together.
    public var propertyMappings: [PropertyMapping] { attributeMappings + relationshipMappings }

    public var description: String {
        let head: String
        switch mappingType {
        case .add: head = "add \(destinationEntityName ?? "?")"
        case .remove: head = "remove \(sourceEntityName ?? "?")"
        case .copy: head = "copy \(destinationEntityName ?? "?")"
        case .transform, .custom:
            let source = sourceEntityName ?? "?", destination = destinationEntityName ?? "?"
            head = (mappingType == .custom ? "custom " : "transform ") + (source == destination ? destination : "\(source) → \(destination)")
        }
        let changed = propertyMappings.filter { !$0.isPlainCopy }
        guard mappingType == .transform || mappingType == .custom, !changed.isEmpty else { return head }
        return head + "\n" + changed.map { "  \($0)" }.joined(separator: "\n")
    }
}

/// How one destination property is filled: from a source property (renamed or not), or from
/// its default value when nothing maps to it, as Core Data's `NSPropertyMapping`.
///
/// The value expression is a ``StoreExpression``; inferred mappings use `$source.<key>`, as
/// Core Data's inferred mappings read the source object's value for a key.
///
/// For example:
///
/// ```swift
/// let text = PropertyMapping(name: "text", valueExpression: .member(.variable("source"), "body"))
/// text.sourceKey   // "body"
/// ```
public struct PropertyMapping: Sendable, Hashable, CustomStringConvertible {
    /// The destination property.
    public var name: String
    /// Where the value comes from; `nil` gives the destination's default (an empty relationship).
    public var valueExpression: StoreExpression?
    /// How a source attribute's value becomes the destination's type, when the two differ.
    public var conversion: AttributeConversion?
    /// Free-form information.
    public var userInfo: [String: String]

    /// The mapping of destination property `name`, filled from `valueExpression` (the default when
    /// `nil`) — like an `NSPropertyMapping`.
    public init(name: String, valueExpression: StoreExpression?, conversion: AttributeConversion? = nil, userInfo: [String: String] = [:]) {
        self.name = name
        self.valueExpression = valueExpression
        self.conversion = conversion
        self.userInfo = userInfo
    }

    /// A property read from the source property `key`.
    public static func from(_ key: String, to name: String, conversion: AttributeConversion? = nil) -> PropertyMapping {
        PropertyMapping(name: name, valueExpression: .member(.variable("source"), key), conversion: conversion)
    }

    /// The source property the value is read from, when the expression is `$source.<key>`.
    public var sourceKey: String? {
        switch valueExpression {
        case .member(.variable("source"), let key)?: key
        case .keyPath(let path)? where path.hasPrefix("$source.") && !path.dropFirst(8).contains("."): String(path.dropFirst(8))
        default: nil
        }
    }

    /// Read unchanged from the source property of the same name.
    public var isPlainCopy: Bool { sourceKey == name && conversion == nil }

    public var description: String {
        guard let valueExpression else { return "\(name) = default" }
        if let key = sourceKey {
            let converted = conversion.map { " (\($0))" } ?? ""
            return key == name ? "\(name) = $source.\(key)\(converted)" : "\(name) = $source.\(key) (renamed)\(converted)"
        }
        return "\(name) = \(valueExpression)"
    }
}

/// A change of attribute type lightweight migration converts values for.
///
/// For example:
///
/// ```swift
/// AttributeConversion(from: .integer16, to: .integer64).description   // "Integer 16 → Integer 64"
/// ```
public struct AttributeConversion: Sendable, Hashable, CustomStringConvertible {
    /// The attribute's type in the source model.
    public let sourceType: AttributeType
    /// The attribute's type in the destination model.
    public let destinationType: AttributeType

    /// A conversion of values from `sourceType` to `destinationType`.
    public init(from sourceType: AttributeType, to destinationType: AttributeType) {
        self.sourceType = sourceType
        self.destinationType = destinationType
    }

    public var description: String { "\(sourceType.name) → \(destinationType.name)" }
}
