import Foundation
import ModelFiles
import StoreCore

/// Walks everything a user can ask of a decoded model — entities, properties, indexes, fetched
/// properties, parents, every named inverse linked, default values coerced, both kinds of version
/// hash, every warning's text — and returns Core Data's entity hashes. Traps when a relationship
/// names an inverse the model did not link.
@discardableResult
public func exerciseModelVersion(_ version: ModelVersion) -> [String: Data] {
    let model = version.model
    var seen = 0
    for entity in model.entities {
        seen += entity.properties.count + entity.indexes.count + entity.fetchedProperties.count
        _ = entity.superentity?.name
        for relationship in entity.relationships {
            if relationship.inverseName != nil, relationship.inverseRelationship == nil {
                preconditionFailure("\(entity.name).\(relationship.name) names an inverse the model did not link")
            }
            _ = relationship.destinationEntity?.name
        }
        for attribute in entity.attributes {
            _ = attribute.attributeType.coerce(attribute.defaultValue)
        }
    }
    for warning in version.warnings { seen += warning.description.count }
    _ = model.entityVersionHashesByName
    _ = seen
    return model.coreDataEntityVersionHashesByName
}
