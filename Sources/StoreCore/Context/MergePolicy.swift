/// How a save resolves conflicts, as Core Data's `NSMergePolicy`: with changes other contexts
/// saved first (optimistic locking), and with stored objects or other new objects that share a
/// uniqueness constraint's values (constraint conflicts).
///
/// Use one of the five shared policies, or subclass to decide conflicts yourself. A save hands
/// every list of conflicts to ``resolve(mergeConflicts:in:)`` (Core Data's
/// `resolve(mergeConflicts:)`), which passes the ``MergeConflict``s to
/// ``resolve(optimisticLockingConflicts:in:)`` and then the ``ConstraintConflict``s to
/// ``resolve(constraintConflicts:in:)``. Override any of the three — a ported `NSMergePolicy`
/// subclass keeps its overrides —, change the objects through the context, and call `super` for
/// what is left (or throw to refuse the save, which then changes nothing).
///
/// For example:
///
/// ```swift
/// context.mergePolicy = .mergeByPropertyObjectTrump   // my changes win, property by property
///
/// final class KeepHighScore: MergePolicy {
///     override func resolve(constraintConflicts conflicts: [ConstraintConflict], in context: ManagedObjectContext) throws {
///         // … inspect conflict.databaseSnapshot and conflict.conflictingObjectIDs, then:
///         try super.resolve(constraintConflicts: conflicts, in: context)
///     }
/// }
/// context.mergePolicy = KeepHighScore(merge: .mergeByPropertyObjectTrump)
///
/// final class LogEveryConflict: MergePolicy {
///     override func resolve(mergeConflicts conflicts: [Any], in context: ManagedObjectContext) throws {
///         print("resolving \(conflicts.count) conflicts")
///         try super.resolve(mergeConflicts: conflicts, in: context)
///     }
/// }
/// ```
open class MergePolicy: @unchecked Sendable, Hashable, CustomStringConvertible {
    // @unchecked: the shared policies hold one immutable value; a subclass that adds state
    // keeps it safe itself (it is only called on the saving context's queue).

    /// Core Data's merge policy types.
    ///
    /// For example:
    ///
    /// ```swift
    /// context.mergePolicy = MergePolicy(merge: .mergeByPropertyStoreTrump)   // the store's values win
    /// if context.mergePolicy.mergeType == .error { print("conflicting saves are refused") }
    /// ```
    public enum MergeType: Sendable, Hashable {
        /// Refuse the save: ``MergeConflictError`` for optimistic locking, an
        /// ``ObjectValidationError`` (`.uniquenessConstraint`) listing the ``ConstraintConflict``s.
        case error
        /// Property by property, values changed in the store win over this context's changes; a
        /// new object that duplicates a stored one takes the stored values.
        case mergeByPropertyStoreTrump
        /// Property by property, this context's changes win; a new object that duplicates a
        /// stored one becomes it, with the new values.
        case mergeByPropertyObjectTrump
        /// This context's version of each conflicting object replaces the store's entirely.
        case overwrite
        /// This context's changes to conflicting objects are discarded in favour of the store's.
        case rollback
    }

    /// The policy's type.
    public let mergeType: MergeType

    /// A policy of the given type (subclasses pass the behaviour `super` falls back to).
    public init(merge type: MergeType) { mergeType = type }

    /// Refuse the save with a ``MergeConflictError`` (the default).
    public static let error = MergePolicy(merge: .error)
    /// Property by property, values changed in the store win over this context's changes.
    public static let mergeByPropertyStoreTrump = MergePolicy(merge: .mergeByPropertyStoreTrump)
    /// Property by property, this context's changes win; other properties take the store's values.
    public static let mergeByPropertyObjectTrump = MergePolicy(merge: .mergeByPropertyObjectTrump)
    /// This context's version of each conflicting object replaces the store's entirely.
    public static let overwrite = MergePolicy(merge: .overwrite)
    /// This context's changes to conflicting objects are discarded in favour of the store's.
    public static let rollback = MergePolicy(merge: .rollback)

    /// Resolves objects changed elsewhere since this context read them, so that the save can
    /// be tried again. Called by ``resolve(mergeConflicts:in:)``, on the context's queue during a
    /// save, before ``resolve(constraintConflicts:in:)``.
    ///
    /// - Throws: ``MergeConflictError`` under ``MergeType/error``; anything a subclass throws
    ///   ends the save, which then changes nothing.
    open func resolve(optimisticLockingConflicts conflicts: [MergeConflict], in context: ManagedObjectContext) throws {
        guard mergeType != .error else { throw MergeConflictError(conflicts: conflicts) }
        context.applyOptimisticLockingResolution(conflicts, type: mergeType)
    }

    /// Resolves new or changed objects that share a uniqueness constraint's values with a stored
    /// object or with each other, so that the save can go ahead. Called by
    /// ``resolve(mergeConflicts:in:)``, on the context's queue during a save, before anything is
    /// written.
    ///
    /// - Throws: ``ObjectValidationError`` (`.uniquenessConstraint`, with
    ///   ``ObjectValidationError/constraintConflicts``) under ``MergeType/error``.
    open func resolve(constraintConflicts conflicts: [ConstraintConflict], in context: ManagedObjectContext) throws {
        guard mergeType != .error else { throw ObjectValidationError(constraintConflicts: conflicts) }
        try context.applyConstraintResolution(conflicts, type: mergeType)
    }

    /// Resolves the conflicts a save met — the method every save calls, as Core Data's
    /// `resolve(mergeConflicts:)`: the ``MergeConflict``s go to
    /// ``resolve(optimisticLockingConflicts:in:)`` first, then the ``ConstraintConflict``s to
    /// ``resolve(constraintConflicts:in:)`` (each only when the list has some). A save calls it
    /// with constraint conflicts before writing, and with optimistic-locking conflicts when a
    /// write found objects changed elsewhere (then tries again).
    ///
    /// - Throws: What the methods it calls throw; anything an override throws ends the save,
    ///   which then changes nothing.
    open func resolve(mergeConflicts conflicts: [Any], in context: ManagedObjectContext) throws {
        let locking = conflicts.compactMap { $0 as? MergeConflict }
        let constraints = conflicts.compactMap { $0 as? ConstraintConflict }
        if !locking.isEmpty { try resolve(optimisticLockingConflicts: locking, in: context) }
        if !constraints.isEmpty { try resolve(constraintConflicts: constraints, in: context) }
    }

    /// Policies are equal when they are the same object, or both plain policies of one type.
    public static func == (lhs: MergePolicy, rhs: MergePolicy) -> Bool {
        lhs === rhs || (type(of: lhs) == MergePolicy.self && type(of: rhs) == MergePolicy.self && lhs.mergeType == rhs.mergeType)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(mergeType) }

    public var description: String { "MergePolicy(\(mergeType))" }
}
