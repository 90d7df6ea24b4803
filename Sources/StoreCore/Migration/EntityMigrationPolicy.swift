import Foundation
import Synchronization

/// How a ``MigrationManager`` makes the destination objects of one entity mapping (Core Data's
/// `NSEntityMigrationPolicy`). The default policy does what the mapping says: one destination
/// object per source object, attributes from their value expressions, relationships from theirs
/// (source objects replaced by the objects made from them). Subclass it to make objects your
/// own way, and register the subclass under the name a mapping model gives
/// (``EntityMapping/entityMigrationPolicyClassName``).
///
/// For example, splitting a full name in two:
///
/// ```swift
/// final class SplitNamePolicy: EntityMigrationPolicy {
///     override func createDestinationInstances(forSource source: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
///         try super.createDestinationInstances(forSource: source, in: mapping, manager: manager)
///         let person = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [source])[0]
///         let parts = (try source.value(forKey: "name") as? String ?? "").split(separator: " ", maxSplits: 1)
///         try person.setValue(parts.first.map(String.init), forKey: "firstName")
///         try person.setValue(parts.dropFirst().first.map(String.init), forKey: "lastName")
///     }
/// }
/// EntityMigrationPolicy.register(SplitNamePolicy.self, named: "SplitNamePolicy")
/// ```
///
/// Value expressions may call the policy: `FUNCTION($entityPolicy, "initials:", $source.name)`
/// calls ``value(forFunction:arguments:manager:)`` with `"initials:"`.
open class EntityMigrationPolicy {
    /// Makes a policy; required so a migration manager can make an instance of a registered subclass
    /// from its name.
    public required init() {}

    /// Called before the mapping's objects are made.
    open func begin(_ mapping: EntityMapping, with manager: MigrationManager) throws {}

    /// Makes the destination objects for one source object and associates them with it
    /// (``MigrationManager/associate(sourceInstance:withDestinationInstance:for:)``). The default
    /// inserts one object of the destination entity and sets its attributes from the mapping.
    open func createDestinationInstances(forSource source: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
        guard let name = mapping.destinationEntityName else { return }
        let destination = try manager.destinationContext.insertNewObject(forEntityName: name)
        try manager.applyAttributeMappings(of: mapping, from: source, to: destination, policy: self)
        manager.associate(sourceInstance: source, withDestinationInstance: destination, for: mapping)
    }

    /// Called when every object of the mapping has been made.
    open func endInstanceCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Sets the relationships of one destination object. The default sets each relationship
    /// from the mapping's value expression, with source objects replaced by the objects made
    /// from them.
    open func createRelationships(forDestination destination: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
        try manager.applyRelationshipMappings(of: mapping, to: destination, policy: self)
    }

    /// Called when every relationship of the mapping's objects is set.
    open func endRelationshipCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}

    /// A last check of the mapping's objects before they are saved; throw to stop the migration.
    open func performCustomValidation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Called when the mapping is done.
    open func end(_ mapping: EntityMapping, manager: MigrationManager) throws {}

    /// The value of `FUNCTION($entityPolicy, "selector", arguments…)` in a value expression:
    /// arguments are Swift values (managed objects of the source context, `String`, `Int64`,
    /// `Double`, `Date`…, arrays for collections, `nil`); return such a value. The default throws.
    open func value(forFunction selector: String, arguments: [Any?], manager: MigrationManager) throws -> Any? {
        throw MigrationError(.invalidMapping, "\(type(of: self)) has no function '\(selector)'; override value(forFunction:arguments:manager:) to answer it")
    }

    // MARK: Registry

    private static let registered = Mutex<[String: EntityMigrationPolicy.Type]>([:])

    /// Registers a policy class under the name mapping models give it (Xcode writes
    /// `ModuleName.ClassName`; a name is also found by its last component).
    public static func register(_ type: EntityMigrationPolicy.Type, named name: String) {
        registered.withLock { $0[name] = type }
    }

    /// The registered class for a mapping's policy name.
    static func policyType(named name: String) -> EntityMigrationPolicy.Type? {
        registered.withLock { table in
            if let type = table[name] { return type }
            let last = name.split(separator: ".").last.map(String.init) ?? name
            return table[last] ?? table.first { $0.key.split(separator: ".").last.map(String.init) == last }?.value
        }
    }
}
