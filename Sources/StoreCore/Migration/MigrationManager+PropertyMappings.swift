import Foundation

/// Filling a destination object from its mapping's value expressions. Expressions see
/// `$source` (the source object), `$manager` and `$entityPolicy`; `FUNCTION($manager,
/// "destinationInstancesForEntityMappingNamed:sourceInstances:", "AToB", $source.friends)` and
/// `FUNCTION($entityPolicy, "selector:", …)` call them.
extension MigrationManager {
    /// Sets the destination's attributes from the mapping (a copy mapping without attribute
    /// mappings copies every attribute the two entities share by name).
    public func applyAttributeMappings(of mapping: EntityMapping, from source: ManagedObject, to destination: ManagedObject, policy: EntityMigrationPolicy) throws {
        for property in attributeMappings(of: mapping, destination: destination.entity) {
            guard let expression = property.valueExpression else { continue }
            var value = try evaluate(expression, source: source, policy: policy).storeValue
            if let conversion = property.conversion { value = try conversion.convert(value) }
            do {
                try destination.setStoreValue(value, forKey: property.name)
            } catch {
                throw MigrationError(.migrationFailed, entity: mapping.name, key: property.name, "the value expression \(expression) gave \(value), which the attribute does not take: \(error)")
            }
        }
    }

    /// Sets the destination's relationships from the mapping. Source objects in an expression's
    /// value stand for the objects made from them (by any mapping).
    public func applyRelationshipMappings(of mapping: EntityMapping, to destination: ManagedObject, policy: EntityMigrationPolicy) throws {
        guard let source = sourceInstances(forEntityMappingName: mapping.name, destinationInstances: [destination]).first else { return }
        for property in relationshipMappings(of: mapping, destination: destination.entity) {
            guard let expression = property.valueExpression,
                let relationship = destination.entity.relationshipsByName[property.name]
            else { continue }
            let objects = try destinationObjects(in: try evaluate(expression, source: source, policy: policy))
            if relationship.isToMany {
                try destination.setValue(relationship.isOrdered ? objects as Any : Set(objects) as Any, forKey: property.name)
            } else {
                try destination.setValue(objects.first, forKey: property.name)
            }
        }
    }

    private func attributeMappings(of mapping: EntityMapping, destination: EntityDescription) -> [PropertyMapping] {
        guard mapping.attributeMappings.isEmpty, mapping.mappingType == .copy, let source = sourceEntity(for: mapping) else {
            return mapping.attributeMappings
        }
        return destination.attributes.filter { !$0.isTransient && source.attributesByName[$0.name] != nil }.map { .from($0.name, to: $0.name) }
    }

    /// The relationship mappings of `mapping` for a destination object of `destination` (a copy
    /// mapping without any carries every relationship the two entities share by name).
    func relationshipMappings(of mapping: EntityMapping, destination: EntityDescription) -> [PropertyMapping] {
        guard mapping.relationshipMappings.isEmpty, mapping.mappingType == .copy, let source = sourceEntity(for: mapping) else {
            return mapping.relationshipMappings
        }
        return destination.relationships.filter { !$0.isTransient && source.relationshipsByName[$0.name] != nil }.map { .from($0.name, to: $0.name) }
    }

    func evaluate(_ expression: StoreExpression, source: ManagedObject, policy: EntityMigrationPolicy) throws -> EvaluatedValue {
        var evaluator = PredicateEvaluator()
        evaluator.variables["source"] = .object(source)
        evaluator.variables["manager"] = .object(ManagerReceiver(manager: self))
        evaluator.variables["entityPolicy"] = .object(PolicyReceiver(policy: policy, manager: self))
        return try evaluator.value(of: expression, on: source)
    }

    /// The destination objects a value names: source objects become the objects made from them.
    func destinationObjects(in value: EvaluatedValue) throws -> [ManagedObject] {
        switch value {
        case .value: return []
        case .collection(let items): return try items.flatMap(destinationObjects(in:))
        case .object(let object):
            guard let object = object as? ManagedObject else { return [] }
            if object.managedObjectContext === destinationContext { return [object] }
            return destinationInstances(forEntityMappingName: nil, sourceInstances: [object])
        }
    }
}

/// `$manager` in a value expression.
private struct ManagerReceiver: FunctionCallReceiver {
    let manager: MigrationManager
    var evaluationObjectID: ManagedObjectID? { nil }

    func evaluationValue(forKey key: String) throws -> EvaluatedValue {
        throw FetchError(.invalidKeyPath, "$manager has no key '\(key)'")
    }

    func call(_ selector: String, arguments: [EvaluatedValue]) throws -> EvaluatedValue {
        func sources(_ value: EvaluatedValue) -> [ManagedObject] {
            value.elements.compactMap { if case .object(let object) = $0 { return object as? ManagedObject } else { return nil } }
        }
        let name: String? = if case .value(.string(let name))? = arguments.first { name } else { nil }
        switch selector {
        case "destinationInstancesForEntityMappingNamed:sourceInstances:" where arguments.count == 2:
            return .collection(manager.destinationInstances(forEntityMappingName: name, sourceInstances: sources(arguments[1])).map { .object($0) })
        case "destinationInstancesForSourceRelationshipNamed:sourceInstances:" where arguments.count == 2:
            return .collection(manager.destinationInstances(forEntityMappingName: nil, sourceInstances: sources(arguments[1])).map { .object($0) })
        case "sourceInstancesForEntityMappingNamed:destinationInstances:" where arguments.count == 2:
            return .collection(manager.sourceInstances(forEntityMappingName: name, destinationInstances: sources(arguments[1])).map { .object($0) })
        default:
            throw MigrationError(.invalidMapping, "$manager has no function '\(selector)' with \(arguments.count) argument(s)")
        }
    }
}

/// `$entityPolicy` in a value expression: calls ``EntityMigrationPolicy/value(forFunction:arguments:manager:)``.
private struct PolicyReceiver: FunctionCallReceiver {
    let policy: EntityMigrationPolicy
    let manager: MigrationManager
    var evaluationObjectID: ManagedObjectID? { nil }

    func evaluationValue(forKey key: String) throws -> EvaluatedValue {
        throw FetchError(.invalidKeyPath, "$entityPolicy has no key '\(key)'")
    }

    func call(_ selector: String, arguments: [EvaluatedValue]) throws -> EvaluatedValue {
        let result = try policy.value(forFunction: selector, arguments: arguments.map(Self.swiftValue), manager: manager)
        guard let value = Self.evaluated(result) else {
            throw MigrationError(.invalidMapping, "\(type(of: policy)).value(forFunction: \"\(selector)\") returned a \(type(of: result ?? ())), which is not a store value, a managed object or an array of them")
        }
        return value
    }

    private static func swiftValue(_ value: EvaluatedValue) -> Any? {
        switch value {
        case .value(let value): value.anyValue
        case .object(let object): object as? ManagedObject
        case .collection(let items): items.map(swiftValue)
        }
    }

    /// A policy's answer as a value; `nil` for one of no kind a store holds (never a silent NULL).
    private static func evaluated(_ value: Any?) -> EvaluatedValue? {
        switch value {
        case nil, is NSNull: return .null
        case let object as ManagedObject: return .object(object)
        case let objects as [ManagedObject]: return .collection(objects.map { .object($0) })
        case let objects as Set<ManagedObject>: return .collection(objects.map { .object($0) })
        case let value as StoreValue: return .value(value)
        case let convertible as any StoreValueConvertible: return .value(convertible.storeValue)
        case let items as [Any?]:
            var elements: [EvaluatedValue] = []
            for item in items {
                guard let element = evaluated(item) else { return nil }
                elements.append(element)
            }
            return .collection(elements)
        default: return nil
        }
    }
}
