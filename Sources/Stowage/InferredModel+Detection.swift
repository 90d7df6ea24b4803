import Foundation
import BinaryBackend
import ModelFiles
import SQLiteBackend
import XMLBackend

extension InferredModel {
    /// The model of a store file of any built-in type, detected from its first bytes
    /// (`PersistentStoreType(detectingStoreAt:)`). A SQLite store Core Data wrote keeps
    /// a copy of its model (`Z_MODELCACHE`): when it has one that can be read, that exact model
    /// is used (`source` is `.modelCache`). Otherwise the model is rebuilt from the
    /// store's layout: SQLite and XML stores always, binary stores written by Stowage too.
    /// docs/inspection.md lists what is inferred and its limits.
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
    /// - Throws: ``/StoreCore/StoreError`` — `io` when the file cannot be read, `wrongFormat` when it is not
    ///   a store or its model cannot be inferred (the message says to pass the model instead).
    public init(storeAt url: URL) throws {
        let type = try PersistentStoreType(detectingStoreAt: url)
        switch type {
        case .sqlite: try self.init(sqliteStoreUsingModelCacheAt: url)
        case .xml: try self.init(xmlStoreAt: url)
        case .binary: try self.init(binaryStoreAt: url)
        default: throw StoreError(.wrongFormat, url: url, "the model of a \(type.rawValue) store cannot be inferred; pass the model it was written with")
        }
    }
}

extension InferredModel {
    /// A SQLite store's model: its model cache (`Z_MODELCACHE`) when it has one that decodes,
    /// else the model rebuilt from its layout; the metadata is the store's either way. A cache
    /// that cannot be read becomes a note, and the layout is used.
    init(sqliteStoreUsingModelCacheAt url: URL) throws {
        let layout = try InferredModel(sqliteStoreAt: url)
        let compressed: Data?
        do {
            compressed = try SQLiteModelCache.compressedContent(ofStoreAt: url)
        } catch {
            self = InferredModel(model: layout.model, storeType: .sqlite, notes: layout.notes + ["the store's model cache (Z_MODELCACHE) cannot be read (\(error)); the model was rebuilt from the store's layout"], metadata: layout.metadata)
            return
        }
        guard let compressed else {
            self = layout
            return
        }
        do {
            let cached = try CoreDataModelCache.version(decoding: compressed, storeURL: url)
            let notes = cached.warnings.map { "model cache: " + $0.message }
            self = InferredModel(model: cached.model, storeType: .sqlite, notes: notes, metadata: layout.metadata, source: .modelCache)
        } catch {
            self = InferredModel(model: layout.model, storeType: .sqlite, notes: layout.notes + ["the store's model cache (Z_MODELCACHE) cannot be used (\(error.message)); the model was rebuilt from the store's layout"], metadata: layout.metadata)
        }
    }
}
