/// A value that breaks a rule of the model: wrong type, missing, out of range, a relationship
/// with too few or too many objects, a delete refused by a deny rule, or a failure reported by
/// an object's own validation hook.
///
/// A save validates every changed object and reports every failure together: the thrown error
/// then has code `multipleErrors` and lists each failure in ``detailedErrors``
/// (use ``allErrors`` to read one or many the same way). A failed save changes nothing.
///
/// For example:
///
/// ```swift
/// do { try context.save() }
/// catch let error as ObjectValidationError {
///     for failure in error.allErrors { print(failure.entity, failure.key ?? "", failure.message) }
/// }
/// ```
public struct ObjectValidationError: CodedError, CustomStringConvertible, @unchecked Sendable {
    // @unchecked: `underlyingError` is set once at creation and never mutated; the errors users
    // throw from validation hooks are treated as immutable values.
    /// The kind of a validation failure: an `ErrorCode` whose values (`.missingValue`, `.tooLong`, …)
    /// are its static members below.
    public typealias Code = ErrorCode<ObjectValidationError>
    /// The kind of failure, for matching: `error.code == .missingValue`.
    public let code: Code
    /// The object that failed, if any.
    public let objectID: ManagedObjectID?
    /// The entity of the object that failed.
    public let entity: String
    /// The property that failed, if the failure concerns one.
    public let key: String?
    /// The offending value, if there is one.
    public let value: StoreValue?
    /// What went wrong, in words.
    public let message: String
    /// The error a validation hook threw, for code `custom`.
    public let underlyingError: (any Error)?
    /// The individual failures when ``code`` is `multipleErrors`.
    public let detailedErrors: [ObjectValidationError]
    /// For `uniquenessConstraint` from a context's save: each set of objects that
    /// share a constraint's values, with the stored object they collide with.
    public let constraintConflicts: [ConstraintConflict]

    /// Creates a validation failure; throw one from a validation hook (`validateForInsert()`,
    /// `validateValue(_:forKey:)`, …) to report it with a code of your choice.
    public init(
        _ code: Code, objectID: ManagedObjectID? = nil, entity: String, key: String? = nil,
        value: StoreValue? = nil, _ message: String, underlyingError: (any Error)? = nil
    ) {
        self.code = code
        self.objectID = objectID
        self.entity = entity
        self.key = key
        self.value = value
        self.message = message
        self.underlyingError = underlyingError
        self.detailedErrors = []
        self.constraintConflicts = []
    }

    /// The error a save under ``MergePolicy/error`` throws for constraint conflicts: code
    /// `uniquenessConstraint`, naming the first conflict and listing them all.
    public init(constraintConflicts conflicts: [ConstraintConflict]) {
        let first = conflicts.first
        self.code = .uniquenessConstraint
        self.objectID = first?.conflictingObjectIDs.first
        self.entity = first?.entity ?? ""
        self.key = first?.constraint.joined(separator: ",")
        self.value = nil
        let described = conflicts.prefix(3).map(\.description).joined(separator: "; ")
        let more = conflicts.count > 3 ? " and \(conflicts.count - 3) more" : ""
        self.message = "\(conflicts.count) uniqueness constraint conflict(s): \(described)\(more)"
        self.underlyingError = nil
        self.detailedErrors = []
        self.constraintConflicts = conflicts
    }

    /// Combines several failures; a single failure is returned as it is.
    static func combining(_ errors: [ObjectValidationError]) -> ObjectValidationError? {
        guard let first = errors.first else { return nil }
        if errors.count == 1 { return first }
        var combined = ObjectValidationError(
            .multipleErrors, entity: first.entity, "\(errors.count) validation errors")
        combined = ObjectValidationError(copying: combined, details: errors)
        return combined
    }

    private init(copying other: ObjectValidationError, details: [ObjectValidationError]) {
        self.code = other.code
        self.objectID = other.objectID
        self.entity = other.entity
        self.key = other.key
        self.value = other.value
        self.message = other.message
        self.underlyingError = other.underlyingError
        self.detailedErrors = details
        self.constraintConflicts = other.constraintConflicts
    }

    /// The individual failures: ``detailedErrors`` for a combined error, otherwise `[self]`.
    public var allErrors: [ObjectValidationError] { detailedErrors.isEmpty ? [self] : detailedErrors }

    public var description: String {
        if !detailedErrors.isEmpty {
            return "\(message):\n" + detailedErrors.map { "  - \($0.description)" }.joined(separator: "\n")
        }
        let place = key.map { "\(entity).\($0)" } ?? entity
        let object = objectID.map { " (\($0))" } ?? ""
        return "\(place)\(object): \(message)"
    }
}

extension ErrorCode where Domain == ObjectValidationError {
    /// Several failures at once, as a save reports them (Core Data's
    /// `NSValidationMultipleErrorsError`); each is in `detailedErrors`.
    public static let multipleErrors = Self("multipleErrors")
    /// A required attribute or to-one relationship is nil when saved, or a batch insert or update
    /// gives a required attribute no value (Core Data's `NSValidationMissingMandatoryPropertyError`).
    public static let missingValue = Self("missingValue")
    /// A value not of (or not fitting) the attribute's type, an element a composite does not have, a
    /// related object of the wrong entity or another context, or a value its transformer refuses.
    public static let wrongType = Self("wrongType")
    /// A number or date below the attribute's minimum rule, or NaN (Core Data's
    /// `NSValidationNumberTooSmallError` and `NSValidationDateTooSoonError`).
    public static let tooSmall = Self("tooSmall")
    /// A number or date above the attribute's maximum rule, or NaN (Core Data's
    /// `NSValidationNumberTooLargeError` and `NSValidationDateTooLateError`).
    public static let tooLarge = Self("tooLarge")
    /// A string (in characters) or binary data (in bytes) shorter than the attribute's minimum length
    /// (Core Data's `NSValidationStringTooShortError`).
    public static let tooShort = Self("tooShort")
    /// A string (in characters) or binary data (in bytes) longer than the attribute's maximum length
    /// (Core Data's `NSValidationStringTooLongError`).
    public static let tooLong = Self("tooLong")
    /// A string the attribute's pattern rule does not match as a whole (Core Data's
    /// `NSValidationStringPatternMatchingError`).
    public static let patternMismatch = Self("patternMismatch")
    /// A to-many relationship holds fewer objects than its minimum count when saved (Core Data's
    /// `NSValidationRelationshipLacksMinimumCountError`); an empty optional one passes.
    public static let tooFewObjects = Self("tooFewObjects")
    /// A to-many relationship holds more objects than its maximum count when saved (Core Data's
    /// `NSValidationRelationshipExceedsMaximumCountError`).
    public static let tooManyObjects = Self("tooManyObjects")
    /// A deleted object (by a save or a batch delete) has a relationship with the deny rule that
    /// still holds objects (Core Data's `NSValidationRelationshipDeniedDeleteError`).
    public static let deleteDenied = Self("deleteDenied")
    /// Objects share a uniqueness constraint's values with each other or with a stored object, when
    /// saved or batch-inserted (Core Data's `NSManagedObjectConstraintMergeError`).
    public static let uniquenessConstraint = Self("uniquenessConstraint")
    /// An object's own validation hook threw an error other than an `ObjectValidationError`; that
    /// error is `underlyingError`.
    public static let custom = Self("custom")
}
