import Foundation

extension ModelLinker {
    /// Resolves a relationship's destination and inverse.
    ///
    /// Refused, as Core Data refuses them: a destination the model lacks, negative counts.
    /// Accepted with a warning, as Core Data loads such models (each relationship holds its own
    /// inverse, which nothing checks against the other side):
    /// - a minimum count above the maximum (saves are validated against both, as given);
    /// - an inverse the destination lacks, or one that leads to another entity: the relationship
    ///   is linked one way, as one without an inverse;
    /// - an inverse that does not point back: kept as this relationship's inverse (setting this
    ///   side sets that one), except between two to-many relationships, which share a join table
    ///   only when each names the other — such a relationship is linked one way.
    func resolve(
        _ relationship: RelationshipDescription, of entity: EntityDescription, into problems: inout [ModelError], warnings: inout [ModelError]
    ) {
        guard let destination = model.entitiesByName[relationship.destinationEntityName] else {
            problems.append(ModelError(.unknownDestination, entity: entity.name, key: relationship.name, "destination entity \(relationship.destinationEntityName) does not exist"))
            return
        }
        relationship.destinationEntity = destination
        if relationship.minCount < 0 || relationship.maxCount < 0 {
            problems.append(ModelError(.invalidRelationshipCount, entity: entity.name, key: relationship.name, "minimum count \(relationship.minCount) and maximum count \(relationship.maxCount) cannot be negative"))
        } else if relationship.maxCount > 0, relationship.minCount > relationship.maxCount {
            warnings.append(ModelError(
                .invalidRelationshipCount, entity: entity.name, key: relationship.name,
                "minimum count \(relationship.minCount) is above maximum count \(relationship.maxCount): saves are validated against both, so no member count passes"))
        }
        // A relationship without an inverse (possible in Xcode model files) is linked one way only.
        guard let inverseName = relationship.inverseName else { return }
        guard let inverse = destination.relationshipsByName[inverseName] else {
            warnings.append(ModelError(
                .missingInverse, entity: entity.name, key: relationship.name,
                "inverse '\(inverseName)' not found on \(destination.name); the relationship is linked one way, as one without an inverse"))
            return
        }
        guard let back = model.entitiesByName[inverse.destinationEntityName], entity.isKind(of: back) else {
            warnings.append(ModelError(
                .inverseMismatch, entity: entity.name, key: relationship.name,
                "inverse \(destination.name).\(inverse.name) leads to \(inverse.destinationEntityName), not \(entity.name); the relationship is linked one way, as one without an inverse"))
            return
        }
        if inverse.inverseName != relationship.name {
            let other = inverse.inverseName.map { "\(destination.name).\(inverse.name)'s inverse is \($0)" } ?? "\(destination.name).\(inverse.name) has no inverse"
            if relationship.isToMany, inverse.isToMany {
                warnings.append(ModelError(
                    .inverseMismatch, entity: entity.name, key: relationship.name,
                    "the inverse does not point back (\(other)); a many-to-many needs both sides to name each other, so the relationship is linked one way, as one without an inverse"))
                return
            }
            warnings.append(ModelError(
                .inverseMismatch, entity: entity.name, key: relationship.name,
                "the inverse does not point back (\(other)); it is kept as this relationship's inverse, as Core Data keeps it"))
        }
        relationship.inverseRelationship = inverse
    }
}
