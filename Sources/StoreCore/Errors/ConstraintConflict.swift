/// New objects that share a uniqueness constraint's values with a stored object or with each
/// other — Core Data's `NSConstraintConflict`. A save under a merge policy other than
/// ``MergePolicy/error`` resolves them (see ``MergePolicy/resolve(constraintConflicts:in:)``);
/// under ``MergePolicy/error`` the save throws them in an ``ObjectValidationError``.
///
/// For example:
///
/// ```swift
/// catch let error as ObjectValidationError where error.code == .uniquenessConstraint {
///     for conflict in error.constraintConflicts {
///         print(conflict.entity, conflict.constraint, conflict.constraintValues, conflict.conflictingObjectIDs)
///     }
/// }
/// ```
public struct ConstraintConflict: Sendable, CustomStringConvertible {
    /// The entity that declares the constraint (the objects may be of its sub-entities).
    public let entity: String
    /// The constraint's keys.
    public let constraint: [String]
    /// The shared values, by key.
    public var constraintValues: [String: StoreValue] {
        switch values {
        case .byKey(let values): values
        // A key the constraint names twice keeps its one value (no trap on a repeated name).
        case .inKeyOrder(let values): Dictionary(zip(constraint, values.all), uniquingKeysWith: { first, _ in first })
        }
    }
    /// The stored object holding these values, or `nil` when only new objects share them.
    public let databaseObjectID: ManagedObjectID?
    /// The stored object's saved values (with ``databaseObjectID``).
    public let databaseSnapshot: StoreSnapshot?
    /// The context's new objects holding these values, in the order they were inserted (their
    /// IDs are temporary until the save).
    public let conflictingObjectIDs: [ManagedObjectID]
    /// The shared values as given, or in the order of ``constraint`` (as a save finds them: a
    /// dictionary is made only when ``constraintValues`` is read).
    private let values: Values

    private enum Values: Sendable {
        case byKey([String: StoreValue])
        case inKeyOrder(ConstraintValues)
    }

    /// Creates a conflict record; a context's save builds one for each set of new objects that share
    /// a uniqueness constraint's values, and hands them to its merge policy.
    public init(
        entity: String, constraint: [String], constraintValues: [String: StoreValue], databaseObjectID: ManagedObjectID?,
        databaseSnapshot: StoreSnapshot?, conflictingObjectIDs: [ManagedObjectID]
    ) {
        self.entity = entity
        self.constraint = constraint
        self.values = .byKey(constraintValues)
        self.databaseObjectID = databaseObjectID
        self.databaseSnapshot = databaseSnapshot
        self.conflictingObjectIDs = conflictingObjectIDs
    }

    /// A conflict as a save finds it: `values` in the order of `constraint`.
    init(
        entity: String, constraint: [String], values: ConstraintValues, databaseObjectID: ManagedObjectID?,
        databaseSnapshot: StoreSnapshot?, conflictingObjectIDs: [ManagedObjectID]
    ) {
        self.entity = entity
        self.constraint = constraint
        self.values = .inKeyOrder(values)
        self.databaseObjectID = databaseObjectID
        self.databaseSnapshot = databaseSnapshot
        self.conflictingObjectIDs = conflictingObjectIDs
    }

    public var description: String {
        let byKey = constraintValues
        let values = constraint.map { "\($0) = \(byKey[$0].map { "\($0)" } ?? "nil")" }.joined(separator: ", ")
        let stored = databaseObjectID.map { " and stored object \($0)" } ?? ""
        return "\(entity) (\(values)): \(conflictingObjectIDs.count) new object(s)\(stored)"
    }
}
