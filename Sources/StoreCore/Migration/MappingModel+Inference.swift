import Foundation

extension MappingModel {
    /// The mapping lightweight migration uses between two model versions, inferred as Core Data
    /// infers it (`NSMappingModel.inferredMappingModel(forSourceModel:destinationModel:)`).
    ///
    /// Entities and properties are matched by their canonical name — the renaming identifier
    /// when there is one, else the name — so a rename across several versions still matches.
    /// A removed entity and an added one with the same attributes and relationships are most
    /// likely a rename without its identifier: the mapping lists them in
    /// ``MappingModel/likelyEntityRenames`` (and prints them), since its objects would be dropped.
    /// Inferred: added and removed entities, attributes and relationships; an optional attribute
    /// becoming required when it has a default value, and required becoming optional; renamed
    /// entities and properties; a to-one becoming a to-many, an unordered to-many ordered and back;
    /// an entity moved in or out of a hierarchy; uniqueness constraints and indexes added or
    /// removed (the store rebuilds them); and these attribute type changes: between integer sizes,
    /// between numbers (integers, Decimal, Double, Float) and Boolean, and from any of those to
    /// String (see ``AttributeConversion/convert(_:)``).
    ///
    /// For example:
    ///
    /// ```swift
    /// let mapping = try MappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
    /// print(mapping)
    /// // transform Note
    /// //   text = $source.body (renamed)
    /// //   pinned = default
    /// ```
    ///
    /// - Throws: ``MigrationError`` with `cannotInferMapping` naming the first entity
    ///   and property that cannot be inferred (every problem is listed in the message).
    public static func inferredMappingModel(forSourceModel source: ManagedObjectModel, destinationModel destination: ManagedObjectModel) throws(MigrationError) -> MappingModel {
        var inference = MappingInference(source: source, destination: destination)
        return try inference.run()
    }
}

/// Works out a ``MappingModel`` from two models, collecting every change it cannot infer.
struct MappingInference {
    let source: ManagedObjectModel
    let destination: ManagedObjectModel
    private var problems: [MigrationError] = []

    init(source: ManagedObjectModel, destination: ManagedObjectModel) {
        self.source = source
        self.destination = destination
    }

    /// Source entity names by destination entity name, for every destination entity that has one.
    var sourceEntityNames: [String: String] {
        var names: [String: String] = [:]
        for entity in destination.entities {
            if let match = Self.match(entity.name, entity.renamingIdentifier, among: source.entities) { names[entity.name] = match.name }
        }
        return names
    }

    mutating func run() throws(MigrationError) -> MappingModel {
        let entityNames = sourceEntityNames
        var mappings: [EntityMapping] = []
        for entity in destination.entities {
            guard let sourceName = entityNames[entity.name], let old = source.entitiesByName[sourceName] else {
                mappings.append(EntityMapping(
                    name: "\(entity.name)To\(entity.name)", mappingType: .add, sourceEntityName: nil, destinationEntityName: entity.name,
                    destinationEntityVersionHash: entity.versionHash))
                continue
            }
            mappings.append(entityMapping(from: old, to: entity, entityNames: entityNames))
        }
        let mapped = Set(entityNames.values)
        for entity in source.entities where !mapped.contains(entity.name) {
            mappings.append(EntityMapping(
                name: "\(entity.name)To\(entity.name)", mappingType: .remove, sourceEntityName: entity.name, destinationEntityName: nil,
                sourceEntityVersionHash: entity.versionHash))
        }
        let renames = likelyEntityRenames(entityNames: entityNames)
        guard let first = problems.first else { return MappingModel(entityMappings: mappings, likelyEntityRenames: renames) }
        // A relationship to a renamed entity is often what cannot be inferred: name the likely cause.
        let hint = renames.map { "\n(\($0))" }.joined()
        guard problems.count > 1 else { throw MigrationError(first.code, entity: first.entity, key: first.key, first.message + hint) }
        throw MigrationError(
            first.code, entity: first.entity, key: first.key,
            "\(problems.count) changes cannot be inferred:\n" + problems.map { "  - \($0.description)" }.joined(separator: "\n") + hint)
    }

    private mutating func entityMapping(from old: EntityDescription, to entity: EntityDescription, entityNames: [String: String]) -> EntityMapping {
        let oldStored = old.properties.filter { !$0.isTransient }
        var attributes: [PropertyMapping] = []
        var relationships: [PropertyMapping] = []
        var usedSourceKeys: Set<String> = []
        for property in entity.properties where !property.isTransient {
            let match = Self.match(property.name, property.renamingIdentifier, among: oldStored)
            if let match { usedSourceKeys.insert(match.name) }
            if let attribute = property as? AttributeDescription {
                if let mapping = attributeMapping(attribute, from: match, entity: entity) { attributes.append(mapping) }
            } else if let relationship = property as? RelationshipDescription {
                if let mapping = relationshipMapping(relationship, from: match, entity: entity, entityNames: entityNames) { relationships.append(mapping) }
            }
        }
        let unchanged = old.name == entity.name && usedSourceKeys.count == oldStored.count
            && (attributes + relationships).allSatisfy(\.isPlainCopy) && old.versionHash == entity.versionHash
        return EntityMapping(
            name: "\(old.name)To\(entity.name)", mappingType: unchanged ? .copy : .transform,
            sourceEntityName: old.name, destinationEntityName: entity.name,
            attributeMappings: attributes, relationshipMappings: relationships,
            sourceEntityVersionHash: old.versionHash, destinationEntityVersionHash: entity.versionHash)
    }

    private mutating func attributeMapping(_ attribute: AttributeDescription, from match: PropertyDescription?, entity: EntityDescription) -> PropertyMapping? {
        guard let match else {
            if !attribute.isOptional, attribute.defaultValue.isNull, !attribute.isDerived {
                problem(entity, attribute, "the new attribute is required and has no default value, so existing objects cannot be given one")
            }
            return PropertyMapping(name: attribute.name, valueExpression: nil)
        }
        guard let old = match as? AttributeDescription else {
            problem(entity, attribute, "was the relationship \(match.name) and is now an attribute")
            return nil
        }
        if old.isOptional, !attribute.isOptional, attribute.defaultValue.isNull, !attribute.isDerived {
            problem(entity, attribute, "becomes required but has no default value for the objects that have none")
        }
        guard old.attributeType != attribute.attributeType else { return .from(old.name, to: attribute.name) }
        guard Self.converts(old.attributeType, to: attribute.attributeType) else {
            problem(entity, attribute, "\(old.attributeType.name) becomes \(attribute.attributeType.name), which lightweight migration does not convert")
            return nil
        }
        return .from(old.name, to: attribute.name, conversion: AttributeConversion(from: old.attributeType, to: attribute.attributeType))
    }

    private mutating func relationshipMapping(
        _ relationship: RelationshipDescription, from match: PropertyDescription?, entity: EntityDescription, entityNames: [String: String]
    ) -> PropertyMapping? {
        guard let match else {
            if !relationship.isOptional || relationship.minCount > 0 {
                problem(entity, relationship, "the new relationship is required, so existing objects cannot be given a value")
            }
            return PropertyMapping(name: relationship.name, valueExpression: nil)
        }
        guard let old = match as? RelationshipDescription else {
            problem(entity, relationship, "was the attribute \(match.name) and is now a relationship")
            return nil
        }
        if old.isToMany, !relationship.isToMany {
            problem(entity, relationship, "a to-many relationship becomes a to-one, which lightweight migration does not infer")
        }
        // The objects it held must now be of the destination entity (or one of its sub-entities).
        let carried = entityNames.filter { $0.value == old.destinationEntityName }.map(\.key)
        let fits = carried.contains { name in destination.entitiesByName[name]?.isKind(of: relationship.destinationEntity ?? entity) == true }
        if !fits {
            problem(entity, relationship, "pointed at \(old.destinationEntityName) and now points at \(relationship.destinationEntityName), which those objects do not become")
        }
        if !relationship.isOptional, old.isOptional {
            problem(entity, relationship, "becomes required, so objects without a value cannot be migrated")
        }
        return .from(old.name, to: relationship.name)
    }

    private mutating func problem(_ entity: EntityDescription, _ property: PropertyDescription, _ message: String) {
        problems.append(MigrationError(.cannotInferMapping, entity: entity.name, key: property.name, message))
    }

    /// The element whose canonical name (renaming identifier, else name) is the destination's,
    /// or failing that the one whose name is the destination's renaming identifier.
    static func match<Element>(_ name: String, _ renamingIdentifier: String?, among candidates: [Element]) -> Element? where Element: ModelElementNaming {
        let canonical = renamingIdentifier ?? name
        return candidates.first { ($0.renamingIdentifier ?? $0.name) == canonical }
            ?? candidates.first { $0.name == canonical }
            ?? candidates.first { $0.name == name && $0.renamingIdentifier == nil }
    }

    /// The type changes lightweight migration converts values for.
    static func converts(_ from: AttributeType, to: AttributeType) -> Bool {
        let numbers: Set<AttributeType> = [.integer16, .integer32, .integer64, .decimal, .double, .float, .boolean]
        if numbers.contains(from), numbers.contains(to) { return true }
        return to == .string && numbers.contains(from)
    }
}

/// What matching by canonical name needs of an entity or a property.
protocol ModelElementNaming {
    var name: String { get }
    var renamingIdentifier: String? { get }
}

extension EntityDescription: ModelElementNaming {}
extension PropertyDescription: ModelElementNaming {}
