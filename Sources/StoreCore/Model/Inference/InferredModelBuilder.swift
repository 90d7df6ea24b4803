import Foundation

/// Collects what a backend reads from a store file — entities, attributes, relationships — and
/// turns it into an ``InferredModel``: relationships found on one side only are paired with a
/// matching relationship pointing back, or get a made-up inverse when the backend asks for one
/// (SQLite's to-ones, whose inverse to-many is readable from the foreign key), or stay without
/// an inverse; names that cannot be model names are left out with a note.
///
/// Shared by the backends (`package`), not by users.
///
/// For example:
///
/// ```swift
/// var builder = InferredModelBuilder()
/// builder.addEntity("Recipe")
/// builder.addEntity("Ingredient")
/// builder.addAttribute("name", .string, to: "Recipe")
/// builder.addRelationship("recipe", from: "Ingredient", to: "Recipe", inverseShape: .init())   // Recipe gets "ingredients"
/// let inferred = try builder.build(storeType: .sqlite)
/// ```
package struct InferredModelBuilder {
    package struct Attribute {
        package var name: String
        package var type: AttributeType
        package var userInfo: [String: String]
    }

    /// The shape of the inverse to make when the file shows none.
    package struct InverseShape {
        package var isToMany: Bool
        package var isOrdered: Bool
        package var userInfo: [String: String]

        package init(isToMany: Bool = true, isOrdered: Bool = false, userInfo: [String: String] = [:]) {
            self.isToMany = isToMany
            self.isOrdered = isOrdered
            self.userInfo = userInfo
        }
    }

    package struct Relationship {
        package var name: String
        package var destination: String
        package var isToMany: Bool
        package var isOrdered: Bool
        package var inverse: String?
        package var userInfo: [String: String]
        /// The inverse to make when no relationship pointing back pairs with this one; `nil`
        /// leaves it without an inverse.
        package var inverseShape: InverseShape?
        /// Whether to look for a relationship pointing back at all (`false`: the file says there is none).
        package var pairs: Bool
    }

    package struct Entity {
        package var name: String
        package var parent: String?
        package var attributes: [Attribute] = []
        package var relationships: [Relationship] = []

        var propertyNames: Set<String> { Set(attributes.map(\.name) + relationships.map(\.name)) }
    }

    package internal(set) var entities: [Entity] = []
    /// Notes for the user, in the order they were made.
    package var notes: [String] = []
    /// The store's metadata as text (``InferredModel/metadata``).
    package var metadata: [String: String] = [:]

    package init() {}

    package func entity(named name: String) -> Entity? { entities.first { $0.name == name } }
    package var entityNames: [String] { entities.map(\.name) }

    /// Adds an entity; `false` (and a note) when its name cannot be a model entity name or is taken.
    @discardableResult
    package mutating func addEntity(_ name: String, parent: String? = nil) -> Bool {
        guard ManagedObjectModel.isValidName(name) else {
            notes.append("entity '\(name)' was left out: its name is not a valid entity name")
            return false
        }
        guard entity(named: name) == nil else { return false }
        entities.append(Entity(name: name, parent: parent))
        return true
    }

    /// Every property name in use by `entity`, its ancestors and its descendants.
    package func namesInHierarchy(of entity: String) -> Set<String> {
        var root = entity
        while let parent = self.entity(named: root)?.parent, self.entity(named: parent) != nil { root = parent }
        var names: Set<String> = []
        var pending = [root]
        while let next = pending.popLast() {
            if let found = self.entity(named: next) { names.formUnion(found.propertyNames) }
            pending += entities.filter { $0.parent == next }.map(\.name)
        }
        return names
    }

    func index(of entity: String) -> Int? { entities.firstIndex { $0.name == entity } }

    private mutating func checkName(_ name: String, on entity: String, what: String) -> Int? {
        guard let index = index(of: entity) else { return nil }
        guard ManagedObjectModel.isValidName(name) else {
            notes.append("\(entity): \(what) '\(name)' was left out: not a valid property name")
            return nil
        }
        guard !namesInHierarchy(of: entity).contains(name) else {
            notes.append("\(entity): a second \(what) named '\(name)' was left out")
            return nil
        }
        return index
    }

    /// Adds an attribute; `false` (and a note) when the name is invalid or taken in the entity's hierarchy.
    @discardableResult
    package mutating func addAttribute(_ name: String, _ type: AttributeType, to entity: String, userInfo: [String: String] = [:]) -> Bool {
        guard let index = checkName(name, on: entity, what: "attribute") else { return false }
        entities[index].attributes.append(Attribute(name: name, type: type, userInfo: userInfo))
        return true
    }

    /// Adds a relationship. `inverse` names the other side when the file says which it is;
    /// otherwise ``build(storeType:)`` looks for one pointing back (unless `pairs` is `false`)
    /// and, failing that, makes one of `inverseShape` (none when it is `nil`).
    @discardableResult
    package mutating func addRelationship(
        _ name: String, from entity: String, to destination: String, isToMany: Bool = false, isOrdered: Bool = false,
        inverse: String? = nil, userInfo: [String: String] = [:], inverseShape: InverseShape? = nil, pairs: Bool = true
    ) -> Bool {
        guard self.entity(named: destination) != nil else {
            notes.append("\(entity).\(name) was left out: its destination \(destination) is not an entity of the store")
            return false
        }
        guard let index = checkName(name, on: entity, what: "relationship") else { return false }
        entities[index].relationships.append(Relationship(
            name: name, destination: destination, isToMany: isToMany, isOrdered: isOrdered, inverse: inverse,
            userInfo: userInfo, inverseShape: inverseShape, pairs: pairs))
        return true
    }

    /// Pairs and completes the relationships, then builds and checks the model.
    ///
    /// - Throws: ``ModelError`` if the result is not a valid model (a bug in the inference: every
    ///   name was checked on the way in).
    package func build(storeType: PersistentStoreType) throws(ModelError) -> InferredModel {
        var result = self
        result.completeInverses()
        let descriptions = result.entities.map { entity in
            let attributes: [PropertyDescription] = entity.attributes.map {
                AttributeDescription(name: $0.name, type: $0.type, userInfo: $0.userInfo)
            }
            let relationships: [PropertyDescription] = entity.relationships.map {
                RelationshipDescription(
                    name: $0.name, destinationEntityName: $0.destination, inverseName: $0.inverse,
                    isToMany: $0.isToMany, isOrdered: $0.isOrdered, userInfo: $0.userInfo)
            }
            let properties = attributes + relationships
            return EntityDescription(entity.name, parent: entity.parent) { for property in properties { property } }
        }
        let model = try ManagedObjectModel(versionIdentifiers: [InferredModel.versionIdentifier]) { descriptions }
        return InferredModel(model: model, storeType: storeType, notes: result.notes, metadata: metadata)
    }
}
