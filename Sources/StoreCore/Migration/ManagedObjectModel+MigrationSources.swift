import Foundation
import Synchronization

extension ManagedObjectModel {
    /// The older versions of this model a store may have been saved with; automatic migration
    /// looks among them, by version hashes, for the one that wrote a store that does not fit.
    ///
    /// A model read from an `.xcdatamodeld` or `.momd` bundle (`ManagedObjectModel(contentsOf:)`,
    /// `PersistentContainer(name:)`) comes with every other version of its bundle here, as Core
    /// Data finds them in the app's bundles. For a model built in code, set it yourself.
    ///
    /// For example:
    ///
    /// ```swift
    /// let v2 = try ManagedObjectModel { … }
    /// v2.migrationSourceModels = [v1]
    /// let container = PersistentContainer(name: "Notes", managedObjectModel: v2)
    /// try container.loadPersistentStores()    // a store saved with v1 is migrated to v2
    /// ```
    public var migrationSourceModels: [ManagedObjectModel] {
        get { migrationSources.withLock { $0 } }
        set { migrationSources.withLock { $0 = newValue.filter { $0 !== self } } }
    }

    /// Mapping models automatic migration uses instead of inferring one, when one maps the
    /// version that wrote a store to this model (``MappingModel/isMapping(fromSourceModel:toDestinationModel:)``);
    /// the store is then migrated by a ``MigrationManager``. A model read from an `.xcdatamodeld`
    /// comes with the `.xcmappingmodel`s found beside it.
    ///
    /// For example:
    ///
    /// ```swift
    /// v2.migrationSourceModels = [v1]
    /// v2.migrationMappingModels = [try MappingModel(contentsOf: mappingURL)]
    /// ```
    public var migrationMappingModels: [MappingModel] {
        get { mappingModels.withLock { $0 } }
        set { mappingModels.withLock { $0 = newValue } }
    }
}
