/// The properties of an entity, written as one chain of `.attribute`, `.toOne` and `.toMany`
/// calls inside an ``EntityDescription`` — each line adds one property.
///
/// For example:
///
/// ```swift
/// EntityDescription("Comment") {
///     .attribute("text", .string, optional: false, defaultValue: "")
///     .attribute("createdAt", .date)
///     .toOne("post", destination: "Post", inverse: "comments")
/// }
/// ```
public struct EntityProperties {
    /// The properties, in the order written.
    public var properties: [PropertyDescription]

    /// Wraps property descriptions already built (none by default), for a chain to extend.
    public init(_ properties: [PropertyDescription] = []) { self.properties = properties }

    // MARK: Attributes

    /// An attribute; see ``AttributeDescription``. `derivation` makes it a derived attribute
    /// (see ``AttributeDerivation``): `"comments.@count"`, `"now()"`, `"lowercase:(title)"`.
    public static func attribute(
        _ name: String, _ type: AttributeType, optional: Bool = true, defaultValue: StoreValue = .null,
        transient: Bool = false, rules: [AttributeValidationRule] = [],
        allowsExternalBinaryDataStorage: Bool = false, preservesValueInHistoryOnDeletion: Bool = false,
        userInfo: [String: String] = [:], renamingIdentifier: String? = nil, versionHashModifier: String? = nil,
        derivation: String? = nil
    ) -> EntityProperties {
        EntityProperties([AttributeDescription(
            name: name, type: type, isOptional: optional, defaultValue: defaultValue, isTransient: transient,
            validationRules: rules, allowsExternalBinaryDataStorage: allowsExternalBinaryDataStorage,
            preservesValueInHistoryOnDeletion: preservesValueInHistoryOnDeletion, userInfo: userInfo,
            renamingIdentifier: renamingIdentifier, versionHashModifier: versionHashModifier,
            derivationExpression: derivation)])
    }

    /// Adds an attribute; see ``attribute(_:_:optional:defaultValue:transient:rules:allowsExternalBinaryDataStorage:preservesValueInHistoryOnDeletion:userInfo:renamingIdentifier:versionHashModifier:derivation:)-swift.type.method``.
    public func attribute(
        _ name: String, _ type: AttributeType, optional: Bool = true, defaultValue: StoreValue = .null,
        transient: Bool = false, rules: [AttributeValidationRule] = [],
        allowsExternalBinaryDataStorage: Bool = false, preservesValueInHistoryOnDeletion: Bool = false,
        userInfo: [String: String] = [:], renamingIdentifier: String? = nil, versionHashModifier: String? = nil,
        derivation: String? = nil
    ) -> EntityProperties {
        self + .attribute(
            name, type, optional: optional, defaultValue: defaultValue, transient: transient, rules: rules,
            allowsExternalBinaryDataStorage: allowsExternalBinaryDataStorage,
            preservesValueInHistoryOnDeletion: preservesValueInHistoryOnDeletion, userInfo: userInfo,
            renamingIdentifier: renamingIdentifier, versionHashModifier: versionHashModifier, derivation: derivation)
    }

    /// A composite attribute grouping `elements` (a chain of `.attribute` and `.composite`);
    /// see ``CompositeAttributeDescription``.
    public static func composite(
        _ name: String, optional: Bool = true, elements: EntityProperties, userInfo: [String: String] = [:],
        renamingIdentifier: String? = nil, versionHashModifier: String? = nil
    ) -> EntityProperties {
        EntityProperties([CompositeAttributeDescription(
            name: name, elements: elements.properties.compactMap { $0 as? AttributeDescription }, isOptional: optional,
            userInfo: userInfo, renamingIdentifier: renamingIdentifier, versionHashModifier: versionHashModifier)])
    }

    /// Adds a composite attribute; see ``composite(_:optional:elements:userInfo:renamingIdentifier:versionHashModifier:)-swift.type.method``.
    public func composite(
        _ name: String, optional: Bool = true, elements: EntityProperties, userInfo: [String: String] = [:],
        renamingIdentifier: String? = nil, versionHashModifier: String? = nil
    ) -> EntityProperties {
        self + .composite(
            name, optional: optional, elements: elements, userInfo: userInfo, renamingIdentifier: renamingIdentifier,
            versionHashModifier: versionHashModifier)
    }

    // MARK: Relationships

    /// A to-one relationship; see ``RelationshipDescription``.
    public static func toOne(
        _ name: String, destination: String, inverse: String, deleteRule: DeleteRule = .nullify,
        optional: Bool = true, transient: Bool = false, userInfo: [String: String] = [:],
        renamingIdentifier: String? = nil, versionHashModifier: String? = nil
    ) -> EntityProperties {
        EntityProperties([RelationshipDescription(
            name: name, destinationEntityName: destination, inverseName: inverse, isToMany: false,
            deleteRule: deleteRule, isOptional: optional, minCount: optional ? 0 : 1, maxCount: 1,
            isTransient: transient, userInfo: userInfo, renamingIdentifier: renamingIdentifier,
            versionHashModifier: versionHashModifier)])
    }

    /// Adds a to-one relationship.
    public func toOne(
        _ name: String, destination: String, inverse: String, deleteRule: DeleteRule = .nullify,
        optional: Bool = true, transient: Bool = false, userInfo: [String: String] = [:],
        renamingIdentifier: String? = nil, versionHashModifier: String? = nil
    ) -> EntityProperties {
        self + .toOne(
            name, destination: destination, inverse: inverse, deleteRule: deleteRule, optional: optional,
            transient: transient, userInfo: userInfo, renamingIdentifier: renamingIdentifier,
            versionHashModifier: versionHashModifier)
    }

    /// A to-many relationship (ordered when `ordered` is true); see ``RelationshipDescription``.
    public static func toMany(
        _ name: String, destination: String, inverse: String, ordered: Bool = false,
        deleteRule: DeleteRule = .nullify, minCount: Int = 0, maxCount: Int = 0, transient: Bool = false,
        userInfo: [String: String] = [:], renamingIdentifier: String? = nil, versionHashModifier: String? = nil
    ) -> EntityProperties {
        EntityProperties([RelationshipDescription(
            name: name, destinationEntityName: destination, inverseName: inverse, isToMany: true,
            isOrdered: ordered, deleteRule: deleteRule, isOptional: minCount == 0, minCount: minCount,
            maxCount: maxCount, isTransient: transient, userInfo: userInfo, renamingIdentifier: renamingIdentifier,
            versionHashModifier: versionHashModifier)])
    }

    /// Adds a to-many relationship.
    public func toMany(
        _ name: String, destination: String, inverse: String, ordered: Bool = false,
        deleteRule: DeleteRule = .nullify, minCount: Int = 0, maxCount: Int = 0, transient: Bool = false,
        userInfo: [String: String] = [:], renamingIdentifier: String? = nil, versionHashModifier: String? = nil
    ) -> EntityProperties {
        self + .toMany(
            name, destination: destination, inverse: inverse, ordered: ordered, deleteRule: deleteRule,
            minCount: minCount, maxCount: maxCount, transient: transient, userInfo: userInfo,
            renamingIdentifier: renamingIdentifier, versionHashModifier: versionHashModifier)
    }

    /// Both lists, one after the other.
    public static func + (lhs: EntityProperties, rhs: EntityProperties) -> EntityProperties {
        EntityProperties(lhs.properties + rhs.properties)
    }
}
