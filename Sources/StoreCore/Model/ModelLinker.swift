import Foundation

/// Resolves the names in a freshly built model (parents, destinations, inverses), fills in the
/// inherited property tables and records every inconsistency it finds: as a problem when Core
/// Data refuses such a model too, as a warning when Core Data loads it (an inverse that does not
/// point back, a `now()` derivation on a Double attribute…); docs/model-files.md lists which.
struct ModelLinker {
    let model: ManagedObjectModel

    func link(into problems: inout [ModelError], warnings: inout [ModelError]) {
        let byName = model.entitiesByName
        for entity in model.entities {
            for property in entity.declaredProperties {
                property.entity = entity
                for element in (property as? CompositeAttributeDescription)?.flattenedElements ?? [] { element.entity = entity }
            }
            guard let parentName = entity.superentityName else { continue }
            guard let parent = byName[parentName] else {
                problems.append(ModelError(.unknownParent, entity: entity.name, "parent entity \(parentName) does not exist"))
                continue
            }
            entity.superentity = parent
            parent.subentityNames.append(entity.name)
        }
        for entity in model.entities where hasInheritanceCycle(entity) {
            problems.append(ModelError(.inheritanceCycle, entity: entity.name, "the entity is its own ancestor"))
        }
        guard problems.isEmpty else { return }

        for entity in model.entities { buildPropertyTables(entity, problems: &problems) }
        guard problems.isEmpty else { return }
        for entity in model.entities {
            for property in entity.declaredProperties {
                if let composite = property as? CompositeAttributeDescription {
                    for element in composite.flattenedElements { check(element, of: entity, into: &problems, warnings: &warnings) }
                } else if let attribute = property as? AttributeDescription {
                    check(attribute, of: entity, into: &problems, warnings: &warnings)
                }
                if let relationship = property as? RelationshipDescription {
                    resolve(relationship, of: entity, into: &problems, warnings: &warnings)
                }
            }
            checkConstraintsAndIndexes(of: entity, into: &problems, warnings: &warnings)
        }
        guard problems.isEmpty else { return }
        for entity in model.entities {
            for case let attribute as AttributeDescription in entity.declaredProperties where attribute.isDerived {
                resolveDerivation(of: attribute, in: entity, into: &problems, warnings: &warnings)
            }
        }
        guard problems.isEmpty else { return }
        for entity in model.entities { checkClass(of: entity, into: &problems) }
    }

    private func hasInheritanceCycle(_ entity: EntityDescription) -> Bool {
        var seen: Set<String> = [entity.name]
        var current = entity.superentity
        while let next = current {
            if !seen.insert(next.name).inserted { return true }
            current = next.superentity
        }
        return false
    }

    private func buildPropertyTables(_ entity: EntityDescription, problems: inout [ModelError]) {
        var chain: [EntityDescription] = []
        var current: EntityDescription? = entity
        while let next = current {
            chain.insert(next, at: 0)
            current = next.superentity
        }
        var properties: [PropertyDescription] = []
        var byName: [String: PropertyDescription] = [:]
        var composites: [String: CompositeAttributeDescription] = [:]
        for ancestor in chain {
            for property in ancestor.declaredProperties {
                if !ManagedObjectModel.isValidName(property.name) {
                    problems.append(ModelError(.invalidName, entity: ancestor.name, key: property.name, "'\(property.name)' is not a valid property name"))
                }
                if byName[property.name] != nil || composites[property.name] != nil {
                    if ancestor === entity {
                        problems.append(ModelError(.duplicateProperty, entity: entity.name, key: property.name, "the property is declared twice (or also by a parent entity)"))
                    }
                    continue
                }
                // A composite's elements are the entity's attributes, by key path.
                let stored: [PropertyDescription] = (property as? CompositeAttributeDescription)?.flattenedElements ?? [property]
                if let composite = property as? CompositeAttributeDescription {
                    composites[composite.name] = composite
                    if ancestor === entity { checkElements(of: composite, in: entity, into: &problems) }
                }
                for element in stored where byName[element.name] == nil {
                    byName[element.name] = element
                    properties.append(element)
                }
            }
        }
        entity.compositeAttributesByName = composites
        entity.compositeKeyPaths = Set(composites.values.flatMap { [$0.name] + $0.nestedCompositeKeyPaths })
        entity.properties = properties
        entity.propertiesByName = byName
        entity.attributesByName = byName.compactMapValues { $0 as? AttributeDescription }
        entity.relationshipsByName = byName.compactMapValues { $0 as? RelationshipDescription }
        entity.propertyIndexes = Dictionary(uniqueKeysWithValues: properties.enumerated().map { ($1.name, $0) })
        entity.layout = EntityLayout(properties: properties)
        var descendants: Set<String> = [entity.name]
        var pending = [entity]
        while let next = pending.popLast() {
            for child in next.subentityNames.compactMap({ model.entitiesByName[$0] }) where descendants.insert(child.name).inserted {
                pending.append(child)
            }
        }
        entity.entityAndDescendantNames = descendants
    }

    /// Core Data's rules for a composite's elements: valid, distinct names, and a type it can
    /// keep in the entity's row.
    private func checkElements(of composite: CompositeAttributeDescription, in entity: EntityDescription, into problems: inout [ModelError]) {
        var seen: Set<String> = []
        for element in composite.elements {
            let key = "\(composite.name).\(element.name)"
            if !ManagedObjectModel.isValidName(element.name) {
                problems.append(ModelError(.invalidName, entity: entity.name, key: key, "'\(element.name)' is not a valid element name"))
            }
            if !seen.insert(element.name).inserted {
                problems.append(ModelError(.duplicateProperty, entity: entity.name, key: key, "the composite \(composite.name) has two elements named \(element.name)"))
            }
            let refusal: String? =
                switch element.attributeType {
                case .undefined, .objectID: "a composite's element cannot be of type \(element.attributeType.name)"
                case .binaryData where element.allowsExternalBinaryDataStorage: "a composite's element cannot keep binary data outside the store"
                default:
                    element.isTransient ? "a composite's element cannot be transient"
                        : element.isDerived ? "a composite's element cannot be derived" : nil
                }
            if let refusal { problems.append(ModelError(.invalidAttributeType, entity: entity.name, key: key, refusal)) }
            if let nested = element as? CompositeAttributeDescription { checkElements(of: nested, in: entity, into: &problems) }
        }
    }

    private func check(_ attribute: AttributeDescription, of entity: EntityDescription, into problems: inout [ModelError], warnings: inout [ModelError]) {
        if attribute.attributeType == .undefined, !attribute.isTransient {
            problems.append(ModelError(.invalidAttributeType, entity: entity.name, key: attribute.name, "an Undefined attribute must be transient"))
        }
        if attribute.attributeType.coerce(attribute.defaultValue) == nil {
            problems.append(ModelError(
                .invalidDefaultValue, entity: entity.name, key: attribute.name,
                "default value \(attribute.defaultValue) is not a valid \(attribute.attributeType.name)"))
        }
        for rule in attribute.validationRules {
            switch rule {
            case .minimum(let bound), .maximum(let bound):
                if bound.numericValue == nil {
                    problems.append(ModelError(.invalidValidationRule, entity: entity.name, key: attribute.name, "a minimum or maximum must be a number or a date, not \(bound.kindName)"))
                }
            case .minimumLength(let n), .maximumLength(let n):
                // Core Data keeps the limit as a predicate (`length >= -1`), true or false for every value.
                if n < 0 {
                    warnings.append(ModelError(
                        .invalidValidationRule, entity: entity.name, key: attribute.name,
                        "a negative length limit (\(n)) holds for every value as a minimum and for none as a maximum"))
                }
            case .pattern(let pattern):
                // Core Data keeps the pattern as a `MATCHES` predicate, read only when an object is validated.
                if (try? NSRegularExpression(pattern: pattern)) == nil {
                    warnings.append(ModelError(
                        .invalidValidationRule, entity: entity.name, key: attribute.name,
                        "'\(pattern)' is not a valid regular expression; the rule is not checked"))
                }
            }
        }
    }

    private func checkConstraintsAndIndexes(of entity: EntityDescription, into problems: inout [ModelError], warnings: inout [ModelError]) {
        for constraint in entity.uniquenessConstraints {
            if constraint.isEmpty {
                problems.append(ModelError(.invalidConstraint, entity: entity.name, "a uniqueness constraint must name at least one property"))
            }
            for key in constraint {
                let property = entity.propertiesByName[key]
                if property == nil || (property as? RelationshipDescription)?.isToMany == true || property?.isTransient == true {
                    problems.append(ModelError(.invalidConstraint, entity: entity.name, key: key, "a uniqueness constraint must name stored attributes or to-one relationships"))
                }
            }
        }
        for index in entity.indexes {
            if index.elements.isEmpty {
                problems.append(ModelError(.invalidIndex, entity: entity.name, "index \(index.name) has no elements"))
            }
            for element in index.elements where entity.propertiesByName[element.property] == nil {
                problems.append(ModelError(.invalidIndex, entity: entity.name, key: element.property, "index \(index.name) names unknown property \(element.property)"))
            }
            // Core Data loads an index over a to-many relationship or a transient property (Trio's
            // `Forecast.byValue` indexes `forecastValues`); no column holds one, so the SQL
            // stores leave such an element out of the index.
            for element in index.elements {
                guard let property = entity.propertiesByName[element.property] else { continue }
                if (property as? RelationshipDescription)?.isToMany == true || property.isTransient {
                    warnings.append(ModelError(
                        .invalidIndex, entity: entity.name, key: element.property,
                        "index \(index.name) names \(property.isTransient ? "a transient property" : "a to-many relationship"), which no column holds; the element is left out of the index"))
                }
            }
        }
    }

    private func checkClass(of entity: EntityDescription, into problems: inout [ModelError]) {
        for declared in entity.managedObjectClass.declaredManagedProperties(for: entity) {
            guard let property = entity.propertiesByName[declared.key] else {
                problems.append(ModelError(.classMismatch, entity: entity.name, key: declared.key, "\(entity.managedObjectClass) declares '\(declared.key)' but the entity has no such property"))
                continue
            }
            if let message = declared.mismatch(with: property) {
                problems.append(ModelError(.classMismatch, entity: entity.name, key: declared.key, "\(entity.managedObjectClass).\(declared.key): \(message)"))
            }
        }
    }

    private func resolveDerivation(
        of attribute: AttributeDescription, in entity: EntityDescription, into problems: inout [ModelError], warnings: inout [ModelError]
    ) {
        let expression = attribute.derivationExpression ?? ""
        guard let derivation = AttributeDerivation(parsing: expression) else {
            problems.append(ModelError(
                .invalidDerivation, entity: entity.name, key: attribute.name,
                "'\(expression)' is not a derivation Core Data computes (now(), key, toOne.key, lowercase:/uppercase:/canonical:(key), toMany.@count, toMany.@sum/@min/@max.key)"))
            return
        }
        if attribute.isTransient {
            problems.append(ModelError(.invalidDerivation, entity: entity.name, key: attribute.name, "a derived attribute is stored; it cannot be transient"))
        } else if let problem = derivation.check(attribute, of: entity) {
            // Core Data's store writes now() into any column; a value that is not a time stays as given.
            if derivation == .now {
                warnings.append(ModelError(.invalidDerivation, entity: entity.name, key: attribute.name, problem + "; the attribute is stored as given, not derived"))
            } else {
                problems.append(ModelError(.invalidDerivation, entity: entity.name, key: attribute.name, problem))
            }
        } else {
            attribute.derivation = derivation
        }
    }
}
