import Foundation
import Synchronization

/// What a store factory receives when a coordinator loads a store.
///
/// For example:
///
/// ```swift
/// let description = PersistentStoreDescription(type: .inMemory)
/// let store = try MemoryStore.open(PersistentStoreLoadRequest(description: description, model: model))
///
/// PersistentStoreRegistry.register(PersistentStoreType(rawValue: "mine")) { request in
///     try MyStore(model: request.model, description: request.description)   // your own store
/// }
/// ```
public struct PersistentStoreLoadRequest: Sendable {
    /// The description being loaded.
    public let description: PersistentStoreDescription
    /// The coordinator's model.
    public let model: ManagedObjectModel

    /// A request to load the store `description` describes, holding (part of) `model`.
    public init(description: PersistentStoreDescription, model: ManagedObjectModel) {
        self.description = description
        self.model = model
    }
}

/// The store types a coordinator can load, by name.
///
/// `import Stowage` registers every built-in type; a program that imports `StoreCore` and a
/// single backend registers just that backend, and user-written backends register the same way.
///
/// For example:
///
/// ```swift
/// PersistentStoreRegistry.register(.inMemory) { request in try MemoryStore.open(request) }
/// PersistentStoreRegistry.registeredTypes      // [.inMemory, …]
/// ```
public enum PersistentStoreRegistry {
    /// Creates (opens) a store for a description.
    public typealias Factory = @Sendable (PersistentStoreLoadRequest) throws -> any PersistentStore

    private static let factories = Mutex<[PersistentStoreType: Factory]>([:])
    /// Set once the built-ins are registered; the lock makes every other caller wait for it.
    private static let builtInsRegistered = Atomic<Bool>(false)
    private static let builtInsLock = Mutex<Void>(())

    /// Registers the built-in types once, when the `Stowage` module is linked into the process.
    /// A caller that arrives while another thread registers waits for it, so no store load sees
    /// a half-filled registry.
    private static func registerBuiltInsIfLinked() {
        guard !builtInsRegistered.load(ordering: .acquiring) else { return }
        builtInsLock.withLock { _ in
            guard !builtInsRegistered.load(ordering: .acquiring) else { return }
            // The mangled name of `Stowage.BuiltInStores`; present only when that module is linked.
            if let registrar = _typeByName("7Stowage13BuiltInStoresO") as? any BuiltInStoreRegistrar.Type {
                registrar.registerAll()
            }
            builtInsRegistered.store(true, ordering: .releasing)
        }
    }

    /// Registers (or replaces) the factory for a store type.
    public static func register(_ type: PersistentStoreType, factory: @escaping Factory) {
        factories.withLock { $0[type] = factory }
    }

    /// The registered store types.
    public static var registeredTypes: [PersistentStoreType] {
        registerBuiltInsIfLinked()
        return factories.withLock { Array($0.keys) }.sorted { $0.rawValue < $1.rawValue }
    }

    static func makeStore(_ request: PersistentStoreLoadRequest) throws -> any PersistentStore {
        registerBuiltInsIfLinked()
        let type = request.description.type
        guard let factory = factories.withLock({ $0[type] }) else {
            if let unavailable = type.unavailableInThisBuild(url: request.description.url) { throw unavailable }
            let known = registeredTypes.map(\.rawValue).joined(separator: ", ")
            throw StoreError(
                .unknownStoreType, url: request.description.url,
                "no store type '\(type.rawValue)' is registered (registered: \(known.isEmpty ? "none" : known)); import Stowage, or register the backend with PersistentStoreRegistry.register")
        }
        return try factory(request)
    }
}

/// Implemented by the `Stowage` umbrella module to register the built-in store types; the
/// registry finds it at run time, so StoreCore itself never imports a backend.
///
/// For example:
///
/// ```swift
/// public enum BuiltInStores: BuiltInStoreRegistrar {     // as the Stowage module declares it
///     public static func registerAll() {
///         MemoryStore.register()
///         SQLiteStore.register()                         // … and the XML, binary and PostgreSQL stores
///     }
/// }
/// ```
public protocol BuiltInStoreRegistrar {
    /// Registers every built-in store type with ``PersistentStoreRegistry``; called once, by the
    /// registry itself.
    static func registerAll()
}
