import Foundation

/// A composite attribute (Core Data's `NSCompositeAttributeDescription`, iOS 17): a named group
/// of attributes, its ``elements``, kept in the entity's own row. Its value is a dictionary of
/// the elements' values by name; each element is also read, written, fetched by, sorted by,
/// indexed and constrained through its key path (`location.latitude`).
///
/// For example:
///
/// ```swift
/// EntityDescription("Quake") {
///     .attribute("place", .string)
///     .composite("location", elements: .attribute("latitude", .double).attribute("longitude", .double))
/// }
/// // quake.setValue(["latitude": 35.6, "longitude": 139.7], forKey: "location")
/// // StorePredicate(format: "location.latitude > 30")
/// ```
///
/// When a model is built, each element becomes an attribute of the entity named by its key path
/// (``EntityDescription/properties`` and ``EntityDescription/attributesByName`` hold
/// `location.latitude`, the way every store sees it); the composite itself is in
/// ``EntityDescription/compositeAttributesByName``. Elements may be composites themselves
/// (`address.geo.latitude`); they cannot be transient, derived, `Undefined`, `ObjectID`, or
/// binary data kept outside the store, as in Core Data.
public final class CompositeAttributeDescription: AttributeDescription, @unchecked Sendable {
    // @unchecked: immutable once its model is built (see PropertyDescription).

    /// The attributes the composite groups, in the order written.
    public let elements: [AttributeDescription]
    /// The elements as the entity's attributes, named by key path (`location.latitude`), nested
    /// composites flattened; shared by every entity that has the composite.
    let flattenedElements: [AttributeDescription]
    /// The key paths of the composites inside this one (`location.geo`).
    let nestedCompositeKeyPaths: [String]

    /// Creates a composite attribute grouping `elements` (Core Data's `NSCompositeAttributeDescription`);
    /// inside an entity, `.composite(…)` is the shorter way.
    public init(
        name: String, elements: [AttributeDescription], isOptional: Bool = true, userInfo: [String: String] = [:],
        renamingIdentifier: String? = nil, versionHashModifier: String? = nil
    ) {
        self.elements = elements
        var flattened: [AttributeDescription] = []
        var nested: [String] = []
        Self.flatten(
            elements, keyPath: name, formerKeyPath: renamingIdentifier ?? name, renamed: renamingIdentifier != nil,
            into: &flattened, composites: &nested)
        self.flattenedElements = flattened
        self.nestedCompositeKeyPaths = nested
        super.init(
            name: name, type: .composite, isOptional: isOptional, userInfo: userInfo,
            renamingIdentifier: renamingIdentifier, versionHashModifier: versionHashModifier)
    }

    private static func flatten(
        _ elements: [AttributeDescription], keyPath: String, formerKeyPath: String, renamed: Bool,
        into flattened: inout [AttributeDescription], composites: inout [String]
    ) {
        for element in elements {
            let path = "\(keyPath).\(element.name)"
            let former = "\(formerKeyPath).\(element.renamingIdentifier ?? element.name)"
            let isRenamed = renamed || element.renamingIdentifier != nil
            if let composite = element as? CompositeAttributeDescription {
                composites.append(path)
                flatten(composite.elements, keyPath: path, formerKeyPath: former, renamed: isRenamed, into: &flattened, composites: &composites)
            } else {
                flattened.append(element.flattened(as: path, renamingIdentifier: isRenamed ? former : nil))
            }
        }
    }

    /// Every element that is not itself a composite, with its key path from the composite
    /// (`"latitude"`, `"geo.latitude"`), in the order written.
    public var leafElements: [(keyPath: String, attribute: AttributeDescription)] {
        elements.flatMap { element -> [(keyPath: String, attribute: AttributeDescription)] in
            guard let nested = element as? CompositeAttributeDescription else { return [(element.name, element)] }
            return nested.leafElements.map { ("\(element.name).\($0.keyPath)", $0.attribute) }
        }
    }
}

extension AttributeDescription {
    /// A copy of this attribute named `keyPath`: how a composite's element becomes an attribute
    /// of the entity. `renamingIdentifier` is the element's former key path when it or a
    /// composite above it was renamed, so such a rename migrates like an attribute's.
    func flattened(as keyPath: String, renamingIdentifier: String?) -> AttributeDescription {
        AttributeDescription(
            name: keyPath, type: attributeType, isOptional: isOptional, defaultValue: defaultValue,
            isTransient: isTransient, validationRules: validationRules,
            allowsExternalBinaryDataStorage: allowsExternalBinaryDataStorage,
            preservesValueInHistoryOnDeletion: preservesValueInHistoryOnDeletion, userInfo: userInfo,
            renamingIdentifier: renamingIdentifier, versionHashModifier: versionHashModifier,
            customClassName: customClassName, derivationExpression: derivationExpression)
    }
}

extension EntityDescription {
    /// ``declaredProperties`` with each composite replaced by its elements, as ``properties``
    /// holds them: what a store lays out for the properties this entity adds to its parent's.
    package var declaredPropertiesFlattened: [PropertyDescription] {
        declaredProperties.flatMap { property -> [PropertyDescription] in (property as? CompositeAttributeDescription)?.flattenedElements ?? [property] }
    }

    /// Joins the components of a key path that go through a composite attribute into the name of
    /// the element's attribute: `location` followed by `latitude` reads `location.latitude`.
    /// `key` is returned as it is when it names no composite.
    package func storedKey(_ key: String, continuingWith rest: inout ArraySlice<String>) -> String {
        var key = key
        while compositeKeyPaths.contains(key), let next = rest.first {
            key += "." + next
            rest = rest.dropFirst()
        }
        return key
    }
}
