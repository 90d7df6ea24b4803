import Foundation

/// An attribute of an entity: its type, optionality, default value and validation rules.
///
/// For example:
///
/// ```swift
/// EntityDescription("Quake") {
///     .attribute("magnitude", .double, optional: false, defaultValue: 0.0, rules: .range(0.0...10.0))
///     .attribute("place", .string)
///     .attribute("code", .uuid, preservesValueInHistoryOnDeletion: true)
/// }
/// ```
public class AttributeDescription: PropertyDescription, @unchecked Sendable {
    // @unchecked: immutable once its model is built (see PropertyDescription).

    /// The attribute's type.
    public let attributeType: AttributeType
    /// The value a newly inserted object starts with (`.null` when there is none).
    public let defaultValue: StoreValue
    /// The rules checked when the object is saved.
    public let validationRules: [AttributeValidationRule]
    /// Whether a store may keep large binary values outside its main file.
    public let allowsExternalBinaryDataStorage: Bool
    /// Whether the value is kept in a deletion's tombstone in persistent history.
    public let preservesValueInHistoryOnDeletion: Bool
    /// The class name an Xcode model gives a transformable attribute's values (`customClassName`),
    /// recorded for code generators; Stowage's transformer decides the Swift type.
    public let customClassName: String?
    /// For a derived attribute (Core Data's `NSDerivedAttributeDescription`), the expression it is
    /// computed from, as written in the model (`"children.@count"`, `"now()"`); `nil` otherwise.
    public let derivationExpression: String?
    /// How the store computes a derived attribute on save (resolved when the model is built).
    public internal(set) var derivation: AttributeDerivation?

    /// Whether the attribute is derived (has a ``derivationExpression``).
    public var isDerived: Bool { derivationExpression != nil }

    /// Creates an attribute (Core Data's `NSAttributeDescription`); inside an entity, `.attribute(…)`
    /// is the shorter way. The model checks it when built: the default value must fit the type, the
    /// validation rules must be well-formed, and `derivationExpression` must be one a store computes.
    public init(
        name: String, type: AttributeType, isOptional: Bool = true, defaultValue: StoreValue = .null,
        isTransient: Bool = false, validationRules: [AttributeValidationRule] = [],
        allowsExternalBinaryDataStorage: Bool = false, preservesValueInHistoryOnDeletion: Bool = false,
        userInfo: [String: String] = [:], renamingIdentifier: String? = nil, versionHashModifier: String? = nil,
        customClassName: String? = nil, derivationExpression: String? = nil
    ) {
        self.customClassName = customClassName
        self.derivationExpression = derivationExpression
        self.attributeType = type
        self.defaultValue = defaultValue
        self.validationRules = validationRules
        self.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage
        self.preservesValueInHistoryOnDeletion = preservesValueInHistoryOnDeletion
        super.init(
            name: name, isOptional: isOptional, isTransient: isTransient, userInfo: userInfo,
            renamingIdentifier: renamingIdentifier, versionHashModifier: versionHashModifier)
    }

    /// The name of the registered transformer, for transformable attributes.
    public var valueTransformerName: String? {
        if case .transformable(let name) = attributeType { return name }
        return nil
    }

    override var versionHashText: String {
        "A|\(renamingIdentifier ?? name)|\(attributeType.name)|\(valueTransformerName ?? "")|\(isOptional)|\(isTransient)|\(versionHashModifier ?? "")"
    }
}
