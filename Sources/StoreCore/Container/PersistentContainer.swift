import Foundation

/// Everything an application needs in one object: the model, a coordinator, its stores, a
/// main-queue view context and background contexts — Core Data's `NSPersistentContainer`.
///
/// By default the container has one SQLite store at `defaultDirectoryURL()/<name>.sqlite`;
/// replace ``persistentStoreDescriptions`` before loading to choose other stores.
///
/// For example:
///
/// ```swift
/// let container = PersistentContainer(name: "Blog", managedObjectModel: model)
/// container.persistentStoreDescriptions = [PersistentStoreDescription(type: .inMemory)]
/// try container.loadPersistentStores()
/// let post = try Post(context: container.viewContext)
/// ```
open class PersistentContainer: @unchecked Sendable {
    // @unchecked: `persistentStoreDescriptions` is meant to be set before loading, from one
    // thread, as in Core Data; everything else is immutable or itself thread-safe.

    /// The container's name; the default store file is named after it.
    public let name: String
    /// The model.
    public let managedObjectModel: ManagedObjectModel
    /// The coordinator every context of the container saves through.
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    /// The stores to load.
    public var persistentStoreDescriptions: [PersistentStoreDescription]
    /// The main-queue context for the user interface (or the main thread of a tool).
    public let viewContext: ManagedObjectContext

    /// Creates a container for a model; the stores are loaded by ``loadPersistentStores()``.
    public init(name: String, managedObjectModel: ManagedObjectModel) {
        self.name = name
        self.managedObjectModel = managedObjectModel
        self.persistentStoreCoordinator = PersistentStoreCoordinator(managedObjectModel: managedObjectModel)
        let url = Self.defaultDirectoryURL().appendingPathComponent("\(name).sqlite")
        self.persistentStoreDescriptions = [PersistentStoreDescription(url: url)]
        self.viewContext = ManagedObjectContext(concurrencyType: .mainQueue)
        viewContext.name = "viewContext"
        viewContext.persistentStoreCoordinator = persistentStoreCoordinator
    }

    /// Where default store files live: `$XDG_DATA_HOME/<program>` (or `~/.local/share/<program>`)
    /// on Linux. Override in a subclass to choose another place.
    open class func defaultDirectoryURL() -> URL {
        let environment = ProcessInfo.processInfo.environment
        let base: URL
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            let home = environment["HOME"] ?? NSHomeDirectory()
            base = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/share", isDirectory: true)
        }
        return base.appendingPathComponent(ProcessInfo.processInfo.processName, isDirectory: true)
    }

    /// Loads every described store, calling `completionHandler` once per store with the error,
    /// if any. Stores that ask for it are loaded off the calling thread.
    public func loadPersistentStores(completionHandler: @escaping @Sendable (PersistentStoreDescription, (any Error)?) -> Void) {
        for description in persistentStoreDescriptions {
            let load: @Sendable () -> Void = { [persistentStoreCoordinator] in
                do {
                    try Self.prepareDirectory(for: description)
                    try persistentStoreCoordinator.addPersistentStore(with: description)
                    completionHandler(description, nil)
                } catch {
                    completionHandler(description, error)
                }
            }
            if description.shouldAddStoreAsynchronously { DispatchQueue.global().async(execute: load) } else { load() }
        }
    }

    /// Loads every described store, stopping at the first error.
    public func loadPersistentStores() throws {
        for description in persistentStoreDescriptions {
            try Self.prepareDirectory(for: description)
            try persistentStoreCoordinator.addPersistentStore(with: description)
        }
    }

    private static func prepareDirectory(for description: PersistentStoreDescription) throws {
        guard let url = description.url, url.isFileURL, !description.isReadOnly else { return }
        let directory = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw StoreError(.io, url: directory, "cannot create the store's directory: \(error.localizedDescription)", underlying: error)
        }
    }

    /// A new private-queue context saving straight to the stores.
    public func newBackgroundContext() -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = persistentStoreCoordinator
        return context
    }

    /// Runs `block` on a new background context's queue.
    public func performBackgroundTask(_ block: @escaping @Sendable (ManagedObjectContext) -> Void) {
        let context = newBackgroundContext()
        context.perform { block(context) }
    }

    /// Runs `block` on a new background context's queue and returns its result.
    ///
    /// For example:
    ///
    /// ```swift
    /// let count = try await container.performBackgroundTask { context in
    ///     try context.count(for: FetchRequest<Post>())
    /// }
    /// ```
    public func performBackgroundTask<T: Sendable>(_ block: @escaping @Sendable (ManagedObjectContext) throws -> T) async throws -> T {
        let context = newBackgroundContext()
        return try await context.perform { try block(context) }
    }
}
