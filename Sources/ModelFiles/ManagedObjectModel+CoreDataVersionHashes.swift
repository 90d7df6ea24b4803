import Foundation
import StoreCore

extension ManagedObjectModel {
    /// The entity version hashes Apple's Core Data would record for this model
    /// (`NSStoreModelVersionHashes`), by entity name. See docs/model-files.md.
    public var coreDataEntityVersionHashesByName: [String: Data] {
        CoreDataVersionHasher(model: self).entityHashes()
    }
}
