import Foundation

/// Migrates the file of an atomic store (XML, binary, a user's ``AtomicStoreFormat``): the whole
/// file is read with the source model, every object carried over by the mapping — keeping its
/// primary key, so object IDs and URIs stay valid — and the result written once through the
/// durable replace every save uses. A crash leaves the old file or the new one.
///
/// ``AtomicStore/register(_:format:)`` registers one for each file-backed type.
///
/// For example:
///
/// ```swift
/// try AtomicStoreMigrator(format: XMLStoreFormat()).migrateStore(request)
/// ```
public struct AtomicStoreMigrator: PersistentStoreMigrator {
    /// The file format the store is read and written in (XML, binary or your own).
    public let format: any AtomicStoreFormat

    /// A migrator for atomic-store files in `format`.
    public init(format: any AtomicStoreFormat) {
        self.format = format
    }

    /// Reads the whole file with the source model, carries every object by the mapping (copy, transform or
    /// remove; primary keys kept) and replaces the file durably once; refuses read-only requests.
    public func migrateStore(_ request: StoreMigrationRequest) throws {
        let url = request.url
        if request.options[.readOnly] == .boolean(true) {
            throw MigrationError(.migrationFailed, url: url, "the store is opened read-only, so it is not migrated")
        }
        let file = try format.read(try DurableFile.read(url), model: request.sourceModel)
        request.progress?(1 / 3)
        var migrated = try AtomicFileMigration(request: request).migrate(file)
        migrated.metadata.modelVersionHashes = request.destinationModel.coreDataEntityVersionHashesByName
        migrated.metadata.storeType = request.type.rawValue
        request.progress?(2 / 3)
        try DurableFile.replace(url, with: try format.write(migrated, model: request.destinationModel))
        request.progress?(1)
    }
}

/// Carries every object of an atomic file from the source model's layout to the destination's.
struct AtomicFileMigration {
    let request: StoreMigrationRequest

    func migrate(_ file: AtomicStoreFile) throws -> AtomicStoreFile {
        let mapping = request.mapping
        let destination = request.destinationModel
        // Which objects survive, so relationships drop the keys of removed ones.
        var kept = Set<Int64>()
        var plans: [String: EntityMapping] = [:]
        for object in file.objects {
            let name = object.entityName
            guard request.sourceModel.entitiesByName[name] != nil else {
                throw MigrationError(.migrationFailed, url: request.url, entity: name, "object \(object.primaryKey) is of an entity the source model does not have")
            }
            guard let plan = plans[name] ?? mapping.entityMapping(forSourceEntity: name) else {
                throw MigrationError(.invalidMapping, url: request.url, entity: name, "the mapping says nothing about entity \(name)")
            }
            plans[name] = plan
            if plan.mappingType != .remove { kept.insert(object.primaryKey) }
        }
        var result = AtomicStoreFile(metadata: file.metadata, nextPrimaryKey: file.nextPrimaryKey)
        result.preservedMetadata = file.preservedMetadata
        result.objects.reserveCapacity(kept.count)
        for object in file.objects {
            guard let plan = plans[object.entityName], plan.mappingType != .remove else { continue }
            guard plan.mappingType == .copy || plan.mappingType == .transform,
                let destinationName = plan.destinationEntityName, let entity = destination.entitiesByName[destinationName]
            else {
                throw MigrationError(.invalidMapping, url: request.url, entity: plan.name, "only copy, transform and remove mappings migrate an atomic store's objects")
            }
            result.objects.append(try carried(object, to: entity, by: plan, kept: kept))
        }
        return result
    }

    private func carried(_ object: AtomicStoreObject, to entity: EntityDescription, by plan: EntityMapping, kept: Set<Int64>) throws -> AtomicStoreObject {
        let sourceAttributes = object.attributes
        let sourceRelationships = object.relationships
        var attributes: [String: StoreValue] = [:]
        for property in plan.attributeMappings {
            guard let attribute = entity.attributesByName[property.name] else { continue }
            var value: StoreValue = .null
            if let key = property.sourceKey {
                value = sourceAttributes[key] ?? .null
                if let conversion = property.conversion {
                    do {
                        value = try conversion.convert(value)
                    } catch {
                        throw MigrationError(.migrationFailed, url: request.url, entity: entity.name, key: attribute.name, "object \(object.primaryKey): \(error.message)")
                    }
                }
            } else if property.valueExpression != nil {
                throw MigrationError(.invalidMapping, url: request.url, entity: entity.name, key: property.name, "value expressions other than $source.<key> need a migration manager")
            }
            // New attributes take their default, as do the nils of one that became required.
            if value.isNull, property.sourceKey == nil || !attribute.isOptional { value = attribute.defaultValue }
            if !value.isNull { attributes[attribute.name] = value }
        }
        var relationships: [String: [Int64]] = [:]
        for property in plan.relationshipMappings {
            guard let key = property.sourceKey else { continue }
            let keys = (sourceRelationships[key] ?? []).filter(kept.contains)
            if !keys.isEmpty { relationships[property.name] = keys }
        }
        do {
            return try AtomicStoreObject(entity: entity, primaryKey: object.primaryKey, attributes: attributes, relationships: relationships)
        } catch {
            throw MigrationError(.migrationFailed, url: request.url, entity: entity.name, "object \(object.primaryKey): \(error.message)")
        }
    }
}
