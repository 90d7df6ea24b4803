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

    /// The store types the crash-safety test kills a saving process on (SQLite with history on).
    public static let crashTested: [StoreBackend] = [.sqlite, .xml, .binary]

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

extension StoreBackend {
    /// The shared suite (``StoreTestKit``) on this backend, stores named in temporary directories.
    public var kit: StoreTestKit {
        let type = type, fileExtension = fileExtension
        register()
        return StoreTestKit(type.rawValue, isPersistent: isFileBacked) { name, directory in
            PersistentStoreDescription(type: type, url: fileExtension.map { directory.appendingPathComponent("\(name).\($0)") })
        }
    }
}

/// The stack tests have always used: a ``StoreTestStack`` on one of Stowage's backends.
public typealias BackendStack = StoreTestStack

extension StoreTestStack {
    /// A store named `name` of `backend` in a new temporary directory; `options` are set on its description.
    public convenience init(_ backend: StoreBackend, model: ManagedObjectModel, name: String = "Store", options: [PersistentStoreOption: StoreValue] = [:]) throws {
        let directory = try TemporaryDirectory()
        var description = backend.description(named: name, in: directory)
        for (key, value) in options { description.setOption(value, forKey: key) }
        try self.init(kit: backend.kit, model: model, description: description, directory: directory)
    }
}
