import Foundation

extension MappingModel {
    /// Whether the mapping was made for these two models: every entity it names exists in its
    /// model and, where the mapping records an entity's version hash (Core Data's or Stowage's),
    /// the entity still has it. A mapping that records no hash at all matches by names alone.
    ///
    /// For example:
    ///
    /// ```swift
    /// let mapping = bundle.mappingModels.first { $0.isMapping(fromSourceModel: v1, toDestinationModel: v2) }
    /// ```
    public func isMapping(fromSourceModel source: ManagedObjectModel, toDestinationModel destination: ManagedObjectModel) -> Bool {
        guard !entityMappings.isEmpty else { return false }
        let sourceHashes = source.coreDataEntityVersionHashesByName
        let destinationHashes = destination.coreDataEntityVersionHashesByName
        func fits(_ name: String?, _ hash: Data?, in model: ManagedObjectModel, coreData: [String: Data]) -> Bool {
            guard let name else { return true }
            guard let entity = model.entitiesByName[name] else { return false }
            guard let hash else { return true }
            return hash == entity.versionHash || hash == coreData[name]
        }
        return entityMappings.allSatisfy { mapping in
            (mapping.mappingType == .add || fits(mapping.sourceEntityName, mapping.sourceEntityVersionHash, in: source, coreData: sourceHashes))
                && (mapping.mappingType == .remove
                    || fits(mapping.destinationEntityName, mapping.destinationEntityVersionHash, in: destination, coreData: destinationHashes))
        }
    }
}
