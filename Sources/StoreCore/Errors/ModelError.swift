/// A problem with a model, or a name (entity, key, configuration) that a model does not have.
///
/// Thrown when a ``ManagedObjectModel`` is built and fails validation, and whenever a call names
/// an entity or property that does not exist.
///
/// For example:
///
/// ```swift
/// do { _ = try ManagedObjectModel { … } }
/// catch let error as ModelError { print(error) }   // "Post.comments: inverse 'post' not found on Comment"
/// ```
public struct ModelError: Error, CustomStringConvertible, Sendable {
    public typealias Code = ErrorCode<ModelError>
    public let code: Code
    /// The entity concerned, if any.
    public let entity: String?
    /// The property (or other key) concerned, if any.
    public let key: String?
    /// What went wrong, in words.
    public let message: String
    /// Every problem found, when the model had several (the first is repeated in `code`).
    public internal(set) var detailedErrors: [ModelError] = []

    public init(_ code: Code, entity: String? = nil, key: String? = nil, _ message: String) {
        self.code = code
        self.entity = entity
        self.key = key
        self.message = message
    }

    public var description: String {
        var where_ = entity ?? ""
        if let key { where_ += where_.isEmpty ? key : ".\(key)" }
        let head = where_.isEmpty ? message : "\(where_): \(message)"
        guard detailedErrors.count > 1 else { return head }
        return "\(detailedErrors.count) model errors:\n" + detailedErrors.map { "  - \($0.description)" }.joined(separator: "\n")
    }
}

extension ErrorCode where Domain == ModelError {
    public static let duplicateEntity = Self("duplicateEntity")
    public static let duplicateProperty = Self("duplicateProperty")
    public static let invalidName = Self("invalidName")
    public static let unknownEntity = Self("unknownEntity")
    public static let unknownKey = Self("unknownKey")
    public static let unknownParent = Self("unknownParent")
    public static let inheritanceCycle = Self("inheritanceCycle")
    public static let unknownDestination = Self("unknownDestination")
    public static let missingInverse = Self("missingInverse")
    public static let inverseMismatch = Self("inverseMismatch")
    public static let invalidDefaultValue = Self("invalidDefaultValue")
    public static let invalidValidationRule = Self("invalidValidationRule")
    public static let requiredAttributeWithoutDefault = Self("requiredAttributeWithoutDefault")
    public static let invalidConstraint = Self("invalidConstraint")
    public static let invalidIndex = Self("invalidIndex")
    public static let unknownConfiguration = Self("unknownConfiguration")
    public static let unknownTransformer = Self("unknownTransformer")
    public static let abstractEntity = Self("abstractEntity")
    public static let invalidRelationshipCount = Self("invalidRelationshipCount")
    public static let classMismatch = Self("classMismatch")
    public static let unknownFetchRequestTemplate = Self("unknownFetchRequestTemplate")
    /// An attribute type an attribute cannot have (Undefined on a stored attribute).
    public static let invalidAttributeType = Self("invalidAttributeType")
    /// A derivation expression Stowage (like Core Data) cannot compute, or whose keys do not exist.
    public static let invalidDerivation = Self("invalidDerivation")
}
