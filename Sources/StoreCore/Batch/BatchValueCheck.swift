import Foundation

/// Checks one value of a batch request against its attribute: converted to the attribute's type,
/// present when required, within the validation rules.
package enum BatchValueCheck {
    /// The value converted to the attribute's type, or an error naming the entity, key and `place`
    /// (the row of an insert, the object of an update; only worked out for an error).
    package static func checked(
        _ value: StoreValue, for attribute: AttributeDescription, entity: EntityDescription, objectID: ManagedObjectID? = nil, place: @autoclosure () -> String
    ) throws -> StoreValue {
        func failure(_ code: ObjectValidationError.Code, _ message: String) -> ObjectValidationError {
            ObjectValidationError(code, objectID: objectID, entity: entity.name, key: attribute.name, value: value.isNull ? nil : value, "\(place()): \(message); nothing was written")
        }
        if value.isNull {
            if !attribute.isOptional { throw failure(.missingValue, "\(attribute.name) requires a value") }
            return .null
        }
        guard let coerced = attribute.attributeType.coerce(value) else {
            throw failure(.wrongType, "\(value) (\(value.kindName)) is not a valid \(attribute.attributeType.name) value for \(attribute.name)")
        }
        for rule in attribute.validationRules {
            if let violation = ManagedObjectContext.violation(of: rule, by: coerced) { throw failure(violation.code, "\(attribute.name): \(violation.text)") }
        }
        return coerced
    }
}

/// The checks a batch update passes before it runs: every key names a stored attribute, and
/// every constant fits it.
package enum BatchUpdateCheck {
    package static func attributes(of request: BatchUpdateRequest, entity: EntityDescription) throws -> [String: AttributeDescription] {
        guard !request.propertiesToUpdate.isEmpty else {
            throw FetchError(.invalidArgument, "the batch update of \(entity.name) sets no properties")
        }
        var attributes: [String: AttributeDescription] = [:]
        for (name, expression) in request.propertiesToUpdate {
            guard let attribute = entity.attributesByName[name], !attribute.isTransient else {
                throw FetchError(.invalidKeyPath, "a batch update sets stored attributes only; \(entity.name) has no stored attribute '\(name)'")
            }
            attributes[name] = attribute
            if case .constant(let value) = expression {
                _ = try checked(value, for: attribute, entity: entity, objectID: nil)
            }
        }
        return attributes
    }

    package static func checked(_ value: StoreValue, for attribute: AttributeDescription, entity: EntityDescription, objectID: ManagedObjectID?) throws -> StoreValue {
        try BatchValueCheck.checked(value, for: attribute, entity: entity, objectID: objectID, place: objectID.map { "the batch update of \($0)" } ?? "the batch update")
    }
}
