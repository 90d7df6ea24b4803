/// Laying out an object held by name (or by another model's entity) by an entity of the model:
/// how the engine, the validating initializer and the built-in writers resolve names, with the
/// same errors everywhere.
extension AtomicStoreObject {
    /// Whether the object is laid out by `entity` itself (not by name, not by another model's entity).
    package func isLaidOut(by entity: EntityDescription) -> Bool {
        named == nil && modelEntity === entity
    }

    /// The identity of the entity the object is laid out by, `nil` when it is held by name: for
    /// grouping objects by entity without retaining the entity (which is not cheap: its
    /// properties refer to it weakly) or hashing its name.
    package var layoutIdentity: ObjectIdentifier? {
        guard named == nil, let entity = modelEntity else { return nil }
        return ObjectIdentifier(entity)
    }

    /// The object laid out by `entity`, its names looked up there; itself when it is laid out by
    /// `entity` already. `nil` attributes are left out before names are checked, empty
    /// relationships and transient relationships are dropped, as stores keep neither.
    ///
    /// For example:
    ///
    /// ```swift
    /// let object = try AtomicStoreObject(entityName: "Post", primaryKey: 1, attributes: ["title": "Hi"])
    ///     .laidOut(as: post) { code, key, text in StoreError(code, "'\(key)': \(text)") }
    /// ```
    ///
    /// - Parameter problem: Makes the error for a property `key`: its code and what is wrong.
    /// - Throws: what `problem` makes: `unknownProperty` for a name `entity` does not
    ///   have as a stored attribute (among the attributes) or as a relationship (among the
    ///   relationships); `corrupt` for a to-one relationship holding several keys.
    package func laidOut(
        as entity: EntityDescription, problem: (_ code: StoreError.Code, _ key: String, _ text: String) -> StoreError
    ) throws(StoreError) -> AtomicStoreObject {
        if isLaidOut(by: entity) { return self }
        var result = AtomicStoreObject(entity: entity, primaryKey: primaryKey)
        for (key, value) in attributes where !value.isNull {
            guard let index = entity.propertyIndexes[key], entity.layout.kinds[index] == .attribute else {
                throw problem(.unknownProperty, key, "the model's \(entity.name) has no stored attribute of this name")
            }
            result.values[index] = value
        }
        for (key, keys) in relationships {
            guard let index = entity.propertyIndexes[key], entity.layout.kinds[index] == .toOne || entity.layout.kinds[index] == .toMany else {
                throw problem(.unknownProperty, key, "the model's \(entity.name) has no relationship of this name")
            }
            let kind = entity.layout.kinds[index]
            guard !entity.properties[index].isTransient, !keys.isEmpty else { continue }
            if kind == .toMany {
                result.setToManyKeys(keys, at: index)
            } else if keys.count == 1 {
                result.values[index] = .integer(keys[0])
            } else {
                throw problem(.corrupt, key, "a to-one relationship holding \(keys.count) objects")
            }
        }
        return result
    }
}
