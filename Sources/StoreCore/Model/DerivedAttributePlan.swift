import Foundation

/// A model's derived attributes, entity by entity: what a store computes when it saves.
///
/// ```swift
/// let plan = model.derivedAttributes
/// for entry in plan.entries["Post"] ?? [] { print(entry.attribute.name, entry.derivation) }
/// ```
package struct DerivedAttributePlan: Sendable {
    package struct Entry: Sendable {
        /// The attribute's index in the entity's properties.
        package let index: Int
        package let attribute: AttributeDescription
        package let derivation: AttributeDerivation
    }

    /// The derived attributes of each entity that has any (inherited ones included).
    package let entries: [String: [Entry]]
    /// The entities whose saved changes can change a derived value: the owners, and the
    /// destinations (with their sub-entities) of the relationships derivations read through.
    package let affectingEntityNames: Set<String>

    /// No derived attributes.
    package static let none = DerivedAttributePlan(entries: [:], affectingEntityNames: [])

    private init(entries: [String: [Entry]], affectingEntityNames: Set<String>) {
        self.entries = entries
        self.affectingEntityNames = affectingEntityNames
    }

    package init(model: ManagedObjectModel) {
        var entries: [String: [Entry]] = [:]
        var affecting: Set<String> = []
        for entity in model.entities {
            for (index, property) in entity.properties.enumerated() {
                guard let attribute = property as? AttributeDescription, let derivation = attribute.derivation else { continue }
                entries[entity.name, default: []].append(Entry(index: index, attribute: attribute, derivation: derivation))
                affecting.insert(entity.name)
                if let name = derivation.relationshipName, let destination = entity.relationshipsByName[name]?.destinationEntity {
                    affecting.formUnion(destination.entityAndDescendantNames)
                }
            }
        }
        self.entries = entries
        self.affectingEntityNames = affecting
    }

    package var isEmpty: Bool { entries.isEmpty }
}
