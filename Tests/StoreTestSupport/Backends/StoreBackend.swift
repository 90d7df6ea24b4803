import BinaryBackend
import Foundation
import MemoryBackend
import SQLiteBackend
import StoreCore
import XMLBackend

/// One store type the shared behavioural suite runs against, with how to make a description
/// for it in a directory.
///
/// For example:
///
/// ```swift
/// for backend in StoreBackend.all {
///     let stack = try BackendStack(backend, model: BlogModel.make())
///     …
///     try stack.reopen()
/// }
/// ```
public struct StoreBackend: Sendable, CustomStringConvertible {
    public let type: PersistentStoreType
    /// The store file's extension; `nil` for a store that lives only in memory.
    public let fileExtension: String?
    private let registration: @Sendable () -> Void

    public init(_ type: PersistentStoreType, fileExtension: String?, register: @escaping @Sendable () -> Void) {
        self.type = type
        self.fileExtension = fileExtension
        registration = register
    }

    public static let memory = StoreBackend(.inMemory, fileExtension: nil) { MemoryStore.register() }
    public static let sqlite = StoreBackend(.sqlite, fileExtension: "sqlite") { SQLiteStore.register() }
    public static let xml = StoreBackend(.xml, fileExtension: "xml") { XMLStore.register() }
    public static let binary = StoreBackend(.binary, fileExtension: "binarystore") { BinaryStore.register() }
    /// A user-written format on the atomic engine (``JSONStoreFormat``).
    public static let json = StoreBackend(JSONStoreFormat.type, fileExtension: "json") { JSONStoreFormat.register() }

    /// Every backend the shared suite covers.
    public static let all: [StoreBackend] = [.memory, .sqlite, .xml, .binary, .json]

    /// The file-backed atomic types the crash-safety test kills a saving process on.
    public static let crashTested: [StoreBackend] = [.xml, .binary]

    /// The types `stowage export` writes in ExportCommandTests, in order, starting from SQLite.
    public static let exportChain = ["xml", "binary", "sqlite"]

    /// The order a store is migrated through to prove nothing is lost between types.
    public static let migrationChain: [StoreBackend] = [.sqlite, .xml, .binary, .memory, .json, .sqlite]

    /// Whether the store keeps its objects in a file, so that reopening it reads them back.
    public var isFileBacked: Bool { fileExtension != nil }

    /// Registers the backend's store type.
    public func register() { registration() }

    /// A description of a store of this type named `name` in `directory`.
    public func description(named name: String, in directory: TemporaryDirectory) -> PersistentStoreDescription {
        register()
        return PersistentStoreDescription(type: type, url: fileExtension.map { directory.file("\(name).\($0)") })
    }

    public var description: String { type.rawValue }
}

/// A container on one backend's store that a test can close and open again, as a program
/// does between runs (for the in-memory store, reopening keeps the store and starts fresh
/// contexts, since there is nothing to read back).
public final class BackendStack {
    public let backend: StoreBackend
    public let model: ManagedObjectModel
    public let directory: TemporaryDirectory
    public let storeDescription: PersistentStoreDescription
    public private(set) var container: PersistentContainer

    /// A store named `name` in a new temporary directory; `options` are set on its description.
    public init(_ backend: StoreBackend, model: ManagedObjectModel, name: String = "Store", options: [PersistentStoreOption: StoreValue] = [:]) throws {
        self.backend = backend
        self.model = model
        directory = try TemporaryDirectory()
        var description = backend.description(named: name, in: directory)
        for (key, value) in options { description.setOption(value, forKey: key) }
        storeDescription = description
        container = try Self.load(storeDescription, model: model)
    }

    private static func load(_ description: PersistentStoreDescription, model: ManagedObjectModel) throws -> PersistentContainer {
        let container = PersistentContainer(name: "Store", managedObjectModel: model)
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        return container
    }

    /// The loaded store.
    public var store: any PersistentStore {
        get throws {
            guard let store = container.persistentStoreCoordinator.persistentStores.first else {
                throw StoreError(.noStores, "the stack has no store")
            }
            return store
        }
    }

    /// Closes the store and opens it again in a new container (file-backed stores only).
    public func reopen() throws {
        guard backend.isFileBacked else { return }
        let coordinator = container.persistentStoreCoordinator
        for store in coordinator.persistentStores { try coordinator.removePersistentStore(store) }
        container = try Self.load(storeDescription, model: model)
    }

    /// A new private-queue context of the current container.
    public func newContext() -> ManagedObjectContext { container.newBackgroundContext() }
}
