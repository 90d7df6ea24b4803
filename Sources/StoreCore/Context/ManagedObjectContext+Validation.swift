import Foundation

extension ManagedObjectContext {
    /// Every rule broken by the changed objects: the model's rules and the objects' own hooks.
    ///
    /// The errors are appended to one array: an object that breaks nothing costs no array (a
    /// save validates every inserted and updated object, attribute by attribute).
    func validationErrors() -> [ObjectValidationError] {
        var errors: [ObjectValidationError] = []
        let relationships = !defersRelationshipValidation
        var plans = ValidationPlans()
        insertedSet.forEachObject { object in
            Self.appendModelRuleErrors(of: object, plan: plans.plan(for: object.entity), relationships: relationships, to: &errors)
            if relationships { Self.appendHookErrors(of: object, to: &errors) { try $0.validateForInsert() } }
        }
        updatedSet.forEachObject { object in
            Self.appendModelRuleErrors(of: object, plan: plans.plan(for: object.entity), relationships: relationships, to: &errors)
            if relationships { Self.appendHookErrors(of: object, to: &errors) { try $0.validateForUpdate() } }
        }
        deletedSet.forEachObject { object in
            if let relationship = denyingRelationship(of: object) {
                errors.append(ObjectValidationError(
                    .deleteDenied, objectID: object.objectID, entity: object.entity.name, key: relationship.name,
                    "cannot delete the object: relationship '\(relationship.name)' has the deny rule and still holds objects"))
            }
            Self.appendHookErrors(of: object, to: &errors) { try $0.validateForDelete() }
        }
        return errors
    }

    static func hookErrors(of object: ManagedObject, key: String? = nil, _ hook: (ManagedObject) throws -> Void) -> [ObjectValidationError] {
        var errors: [ObjectValidationError] = []
        appendHookErrors(of: object, key: key, to: &errors, hook)
        return errors
    }

    /// Runs one of the object's validation hooks and appends what it threw.
    static func appendHookErrors(
        of object: ManagedObject, key: String? = nil, to errors: inout [ObjectValidationError], _ hook: (ManagedObject) throws -> Void
    ) {
        do {
            try hook(object)
        } catch let error as ObjectValidationError {
            errors += error.allErrors
        } catch {
            errors.append(ObjectValidationError(.custom, objectID: object.objectID, entity: object.entity.name, key: key, "\(error)", underlyingError: error))
        }
    }

    /// The model's rules for one object: required values, types, ranges, lengths, patterns and
    /// relationship counts (the attributes' rules, with the values that could not be set, and
    /// the relationships' rules as asked).
    static func modelRuleErrors(of object: ManagedObject, attributes: Bool = true, relationships: Bool = true) -> [ObjectValidationError] {
        var errors: [ObjectValidationError] = []
        appendModelRuleErrors(of: object, attributes: attributes, relationships: relationships, to: &errors)
        return errors
    }

    /// Appends the errors ``modelRuleErrors(of:attributes:relationships:)`` returns.
    static func appendModelRuleErrors(
        of object: ManagedObject, attributes: Bool = true, relationships: Bool, to errors: inout [ObjectValidationError]
    ) {
        appendModelRuleErrors(of: object, plan: ValidationPlan(entity: object.entity), attributes: attributes, relationships: relationships, to: &errors)
    }

    /// Appends the errors ``modelRuleErrors(of:attributes:relationships:)`` returns, checking the
    /// properties `plan` (the object's entity's) lists.
    static func appendModelRuleErrors(
        of object: ManagedObject, plan: ValidationPlan, attributes: Bool = true, relationships: Bool, to errors: inout [ObjectValidationError]
    ) {
        if attributes, !object.state.failedSets.isEmpty { errors += object.state.failedSets.sorted { $0.key < $1.key }.map(\.value) }
        func fail(_ code: ObjectValidationError.Code, _ key: String, _ value: StoreValue?, _ message: String) {
            errors.append(ObjectValidationError(code, objectID: object.objectID, entity: object.entity.name, key: key, value: value, message))
        }
        // The values are loaded once for all the attributes (not checked again for each).
        if attributes { object.willAccess() }
        // By position: the array's iterator handed out a copy of each check (its name, its type).
        let checks = plan.checks
        for position in checks.indices {
            switch checks[position].kind {
            case .attribute:
                guard attributes else { continue }
                let check = checks[position]
                let value = object.values[check.index]
                if value.isNull {
                    if check.isRequired { fail(.missingValue, check.name, nil, "a value is required") }
                    continue
                }
                // A value of the case its type takes as it is needs no more (the usual value).
                if !check.heldCase.holds(value), let type = check.type, !type.accepts(value) {
                    fail(.wrongType, check.name, value, "\(value) (\(value.kindName)) is not a valid \(type.name) value")
                    continue
                }
                var passed = true
                if check.hasRules, let attribute = check.property as? AttributeDescription {
                    for rule in attribute.validationRules {
                        if let message = violation(of: rule, by: value) {
                            fail(message.code, check.name, value, message.text)
                            passed = false
                        }
                    }
                }
                if passed {
                    do {
                        try object.validateValue(value, forKey: check.name)
                    } catch {
                        appendHookErrors(of: object, key: check.name, to: &errors) { _ in throw error }
                    }
                }
            case .toMany:
                let check = checks[position]
                guard relationships, let relationship = check.property as? RelationshipDescription else { continue }
                let count = object.toManyObjects(at: check.index).objects.filter { !$0.state.isDeleted }.count
                if count < relationship.minCount, !(relationship.isOptional && count == 0) {
                    fail(.tooFewObjects, relationship.name, nil, "holds \(count) object(s); at least \(relationship.minCount) required")
                }
                if relationship.maxCount > 0, count > relationship.maxCount {
                    fail(.tooManyObjects, relationship.name, nil, "holds \(count) object(s); at most \(relationship.maxCount) allowed")
                }
            case .requiredToOne:
                let check = checks[position]
                guard relationships, let relationship = check.property as? RelationshipDescription else { continue }
                let destination = object.toOneObject(at: check.index)
                if destination == nil || destination?.state.isDeleted == true {
                    fail(.missingValue, relationship.name, nil, "a \(relationship.destinationEntityName) is required")
                }
            }
        }
    }

    static func violation(of rule: AttributeValidationRule, by value: StoreValue) -> (code: ObjectValidationError.Code, text: String)? {
        if value.numericValue?.isNaN == true, case .minimum = rule { return (.tooSmall, "NaN is not a number within the allowed range") }
        if value.numericValue?.isNaN == true, case .maximum = rule { return (.tooLarge, "NaN is not a number within the allowed range") }
        switch rule {
        case .minimum(let bound):
            if let order = ValueComparison.order(value, bound), order == .orderedAscending { return (.tooSmall, "\(value) is below the minimum \(bound)") }
        case .maximum(let bound):
            if let order = ValueComparison.order(value, bound), order == .orderedDescending { return (.tooLarge, "\(value) is above the maximum \(bound)") }
        case .minimumLength(let length):
            if let count = measuredLength(of: value), count < length { return (.tooShort, "length \(count) is below the minimum \(length)") }
        case .maximumLength(let length):
            if let count = measuredLength(of: value), count > length { return (.tooLong, "length \(count) is above the maximum \(length)") }
        case .pattern(let pattern):
            guard case .string(let string) = value, let regex = try? NSRegularExpression(pattern: "^(?:\(pattern))$") else { return nil }
            let range = NSRange(string.startIndex..., in: string)
            if regex.firstMatch(in: string, range: range) == nil { return (.patternMismatch, "\"\(string)\" does not match /\(pattern)/") }
        }
        return nil
    }

    private static func measuredLength(of value: StoreValue) -> Int? {
        switch value {
        case .string(let s): s.count
        case .data(let d): d.count
        default: nil
        }
    }
}
