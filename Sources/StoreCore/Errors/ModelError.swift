/// A problem with a model, or a name (entity, key, configuration) that a model does not have.
///
/// Thrown when a ``ManagedObjectModel`` is built and fails validation, and whenever a call names
/// an entity or property that does not exist; a flaw Core Data loads a model with (an inverse
/// that does not point back) is one of the model's ``ManagedObjectModel/warnings`` instead.
///
/// For example:
///
/// ```swift
/// do { _ = try ManagedObjectModel { … } }
/// catch let error as ModelError { print(error) }   // "Post.comments: inverse 'post' not found on Comment"
/// ```
public struct ModelError: CodedError, CustomStringConvertible, Sendable {
    /// The kind of a model error: an `ErrorCode` whose values (`.missingInverse`, `.unknownEntity`, …)
    /// are its static members below.
    public typealias Code = ErrorCode<ModelError>
    /// The kind of problem (the first problem's, when the model had several), for matching:
    /// `error.code == .missingInverse`.
    public let code: Code
    /// The entity concerned, if any.
    public let entity: String?
    /// The property (or other key) concerned, if any.
    public let key: String?
    /// What went wrong, in words.
    public let message: String
    /// Every problem found, when the model had several (the first is repeated in `code`).
    public internal(set) var detailedErrors: [ModelError] = []

    /// Creates a model error; `description` puts `entity` and `key`, when given, before `message`
    /// (`Post.comments: …`).
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
    /// Two entities of a model share a name, or an entity description already belongs to another
    /// model (each model needs its own).
    public static let duplicateEntity = Self("duplicateEntity")
    /// A property declared twice in an entity (or also by a parent entity), or a composite attribute
    /// with two elements of the same name.
    public static let duplicateProperty = Self("duplicateProperty")
    /// An entity, property or composite element name that is not letters, digits and `_`, or that
    /// starts with a digit.
    public static let invalidName = Self("invalidName")
    /// A call or a fetch request template names an entity the model does not have (or a context with
    /// no coordinator, and so no model, is asked for one).
    public static let unknownEntity = Self("unknownEntity")
    /// A call names a property the entity does not have (`value(forKey:)`, `property(named:)`, a
    /// batch insert's attribute, a store snapshot's values), or a store snapshot is given a to-many
    /// relationship among its values or another property among its to-manys.
    public static let unknownKey = Self("unknownKey")
    /// An entity's parent entity is not in the model.
    public static let unknownParent = Self("unknownParent")
    /// An entity is its own ancestor through its chain of parent entities.
    public static let inheritanceCycle = Self("inheritanceCycle")
    /// A relationship's destination entity is not in the model.
    public static let unknownDestination = Self("unknownDestination")
    /// A relationship names an inverse that the destination entity does not have — a warning
    /// (``ManagedObjectModel/warnings``): the relationship is linked one way, as Core Data loads it.
    public static let missingInverse = Self("missingInverse")
    /// A relationship's inverse does not point back to it (its own inverse or destination is
    /// another) — a warning (``ManagedObjectModel/warnings``), as Core Data loads such models.
    public static let inverseMismatch = Self("inverseMismatch")
    /// An attribute's default value is not a valid value of the attribute's type.
    public static let invalidDefaultValue = Self("invalidDefaultValue")
    /// A validation rule that cannot apply: a minimum or maximum that is not a number or a date;
    /// a negative length limit or a pattern that is not a valid regular expression are warnings
    /// (``ManagedObjectModel/warnings``), as Core Data keeps them as predicates.
    public static let invalidValidationRule = Self("invalidValidationRule")
    /// Lightweight migration (`checkLightweightMigration(from:)`) finds a new attribute that is
    /// required but has no default value, so existing objects cannot be given one.
    public static let requiredAttributeWithoutDefault = Self("requiredAttributeWithoutDefault")
    /// A uniqueness constraint that names no property, or one that is not a stored attribute or
    /// to-one relationship.
    public static let invalidConstraint = Self("invalidConstraint")
    /// A fetch index with no elements, or one naming a property the entity does not have or that a
    /// SQL store cannot index (not a stored attribute or to-one relationship).
    public static let invalidIndex = Self("invalidIndex")
    /// A configuration names an entity the model does not have, or a call names a configuration the
    /// model does not have.
    public static let unknownConfiguration = Self("unknownConfiguration")
    /// A transformable attribute's value is read or written but no transformer is registered under
    /// its name (register it with `AttributeValueTransformers.register`).
    public static let unknownTransformer = Self("unknownTransformer")
    /// An object of an abstract entity is inserted (or batch-inserted); insert one of its sub-entities.
    public static let abstractEntity = Self("abstractEntity")
    /// A relationship's minimum and maximum counts are negative; a minimum above the maximum is a
    /// warning (``ManagedObjectModel/warnings``), as Core Data validates saves against both as given.
    public static let invalidRelationshipCount = Self("invalidRelationshipCount")
    /// A `ManagedObject` subclass does not fit its entity: it declares a property the entity does not
    /// have or with the wrong wrapper or Swift type, or an object is inserted as a class that does not
    /// represent the entity.
    public static let classMismatch = Self("classMismatch")
    /// `fetchRequestFromTemplate(withName:substitutionVariables:)` names a template the model does
    /// not have.
    public static let unknownFetchRequestTemplate = Self("unknownFetchRequestTemplate")
    /// An attribute type an attribute cannot have (Undefined on a stored attribute).
    public static let invalidAttributeType = Self("invalidAttributeType")
    /// A derivation expression Stowage (like Core Data) cannot compute, or whose keys do not exist;
    /// `now()` on an attribute that cannot hold a time (not a Date, Double or Float) is a warning
    /// (``ManagedObjectModel/warnings``) and the attribute is stored as given.
    public static let invalidDerivation = Self("invalidDerivation")
}
