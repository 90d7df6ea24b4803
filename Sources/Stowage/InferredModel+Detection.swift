import Foundation
import BinaryBackend
import SQLiteBackend
import XMLBackend

extension InferredModel {
    /// Rebuilds the model of a store file of any built-in type, detected from its first bytes
    /// (``PersistentStoreType/init(detectingStoreAt:)``): SQLite and XML stores always, binary
    /// stores written by Stowage too. docs/inspection.md lists what is inferred and its limits.
    ///
    /// For example:
    ///
    /// ```swift
    /// let inferred = try InferredModel(storeAt: url)
    /// let container = PersistentContainer(name: "Inspect", managedObjectModel: inferred.model)
    /// container.persistentStoreDescriptions = [.inspecting(url, type: inferred.storeType)]
    /// try container.loadPersistentStores()
    /// ```
    ///
    /// - Throws: ``StoreError`` — `io` when the file cannot be read, `wrongFormat` when it is not
    ///   a store or its model cannot be inferred (the message says to pass the model instead).
    public init(storeAt url: URL) throws {
        let type = try PersistentStoreType(detectingStoreAt: url)
        switch type {
        case .sqlite: try self.init(sqliteStoreAt: url)
        case .xml: try self.init(xmlStoreAt: url)
        case .binary: try self.init(binaryStoreAt: url)
        default: throw StoreError(.wrongFormat, url: url, "the model of a \(type.rawValue) store cannot be inferred; pass the model it was written with")
        }
    }
}
