extension ManagedObjectModel {
    /// Checks that a store saved with `source` can be migrated to this model without a mapping
    /// model: every entity and property is matched by name or renaming identifier, and every
    /// attribute this model adds is optional or has a default value (existing objects need one).
    ///
    /// For example:
    ///
    /// ```swift
    /// try newModel.checkLightweightMigration(from: oldModel)
    /// ```
    ///
    /// - Throws: ``ModelError`` listing every property that cannot be filled in.
    public func checkLightweightMigration(from source: ManagedObjectModel) throws(ModelError) {
        var problems: [ModelError] = []
        for entity in entities {
            guard let old = source.entitiesByName[entity.renamingIdentifier ?? entity.name] ?? source.entitiesByName[entity.name] else { continue }
            for case let attribute as AttributeDescription in entity.properties where !attribute.isTransient {
                let existed = old.propertiesByName[attribute.renamingIdentifier ?? attribute.name] != nil || old.propertiesByName[attribute.name] != nil
                if !existed, !attribute.isOptional, attribute.defaultValue.isNull {
                    problems.append(ModelError(
                        .requiredAttributeWithoutDefault, entity: entity.name, key: attribute.name,
                        "the new attribute is required but has no default value, so existing \(entity.name) objects cannot be migrated; make it optional or give it a default"))
                }
            }
        }
        if !problems.isEmpty { throw Self.combined(problems) }
    }
}
