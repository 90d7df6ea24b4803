import Foundation

/// A model reconstructed from a store file alone — "inspection mode" — with notes on what could
/// not be recovered.
///
/// Every backend that can read its files without a model offers an initializer in an extension
/// (`InferredModel(sqliteStoreAt:)` in SQLiteBackend, `InferredModel(xmlStoreAt:)` in
/// XMLBackend, `InferredModel(binaryStoreAt:)` in BinaryBackend); `import Stowage` adds
/// `InferredModel(storeAt:)`, which detects the type from the file's first bytes. A store opened
/// with an inferred model must be opened read-only: the model is a best reading of the file, not
/// the application's model, and saving through it is refused (``PersistentStoreDescription/inspecting(_:type:)``).
/// docs/inspection.md lists what is inferred and its limits.
///
/// For example:
///
/// ```swift
/// let inferred = try InferredModel(storeAt: URL(fileURLWithPath: "Recipes.sqlite"))
/// for note in inferred.notes { print("note:", note) }
/// let coordinator = PersistentStoreCoordinator(managedObjectModel: inferred.model)
/// try coordinator.addPersistentStore(with: .inspecting(url, type: inferred.storeType))
/// ```
public struct InferredModel: Sendable {
    /// The version identifier every inferred model carries, so that anything holding the model
    /// can tell it was inferred.
    public static let versionIdentifier = "Stowage.InferredModel"
    /// The `userInfo` key marking a relationship whose name the store does not record: the
    /// made-up inverse of one it does (`Recipe.ingredients` for `Ingredient.recipe`).
    public static let madeUpInverseKey = "Stowage.MadeUpInverse"

    /// The reconstructed model.
    public let model: ManagedObjectModel
    /// The type of the store it was read from.
    public let storeType: PersistentStoreType
    /// What could not be inferred, or was guessed, or was left out — one sentence each.
    public let notes: [String]
    /// The store's metadata as recorded in the file, every key (Core Data's own included), as
    /// text; nested dictionaries are flattened into dotted keys
    /// (`NSStoreModelVersionHashes.Author`).
    public let metadata: [String: String]
    /// Where ``model`` came from.
    public let source: Source

    /// Where an inspection model came from.
    ///
    /// For example:
    ///
    /// ```swift
    /// let inferred = try InferredModel(storeAt: url)
    /// switch inferred.source {
    /// case .modelCache: print("the model Core Data kept in the file")
    /// case .storeLayout: print("rebuilt from the store's layout:", inferred.notes)
    /// }
    /// ```
    public enum Source: Sendable, Hashable {
        /// Rebuilt from the store's layout (tables and columns, or the file's structure).
        case storeLayout
        /// The store's own copy of the model it was written with: Core Data's `Z_MODELCACHE`
        /// in its SQLite stores (`InferredModel(storeAt:)` in `Stowage` reads it).
        case modelCache
    }

    /// Wraps an inferred model with what was learnt about it; the backends' `InferredModel(…StoreAt:)`
    /// initializers build one.
    public init(model: ManagedObjectModel, storeType: PersistentStoreType, notes: [String], metadata: [String: String] = [:], source: Source = .storeLayout) {
        self.model = model
        self.storeType = storeType
        self.notes = notes
        self.metadata = metadata
        self.source = source
    }
}

extension InferredModel {
    /// Reads a store file and infers its model with `infer`, naming the file in any error: the
    /// part every backend's `InferredModel(…StoreAt:)` shares.
    package static func inferring(from url: URL, _ infer: (Data) throws -> InferredModel) throws -> InferredModel {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw StoreError(.io, url: url, "the file cannot be read: \(error.localizedDescription)", underlying: error)
        }
        do {
            return try infer(data)
        } catch var error as StoreError {
            if error.url == nil { error = StoreError(error.code, url: url, error.message) }
            throw error
        }
    }
}
