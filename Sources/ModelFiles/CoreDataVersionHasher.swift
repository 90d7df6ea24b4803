import Foundation
import StoreCore

/// Computes Core Data's version hashes from a model (work in progress).
struct CoreDataVersionHasher {
    let model: ManagedObjectModel

    func entityHashes() -> [String: Data] { [:] }
}
