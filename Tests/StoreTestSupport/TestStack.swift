import BinaryBackend
import Foundation
import MemoryBackend
import SQLiteBackend
import XMLBackend
import StoreCore

/// A container on fresh in-memory stores, for tests.
public enum TestStack {
    /// A loaded container for `model` (the blog model by default) with one in-memory store.
    public static func container(
        _ model: ManagedObjectModel? = nil, descriptions: [PersistentStoreDescription]? = nil
    ) throws -> PersistentContainer {
        MemoryStore.register()
        let container = PersistentContainer(name: "Test", managedObjectModel: try model ?? BlogModel.make())
        container.persistentStoreDescriptions = descriptions ?? [PersistentStoreDescription(type: .inMemory)]
        try container.loadPersistentStores()
        return container
    }

    /// A private-queue root context of a fresh container.
    public static func context(_ model: ManagedObjectModel? = nil) throws -> ManagedObjectContext {
        try container(model).newBackgroundContext()
    }

    /// A loaded container with one SQLite store at `url` (the blog model by default).
    public static func sqliteContainer(
        _ model: ManagedObjectModel? = nil, at url: URL, configure: (inout PersistentStoreDescription) -> Void = { _ in }
    ) throws -> PersistentContainer {
        SQLiteStore.register()
        let container = PersistentContainer(name: "Test", managedObjectModel: try model ?? BlogModel.make())
        var description = PersistentStoreDescription(url: url)
        configure(&description)
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        return container
    }

    /// A loaded container with one binary store at `url` (the blog model by default).
    public static func binaryContainer(_ model: ManagedObjectModel? = nil, at url: URL) throws -> PersistentContainer {
        BinaryStore.register()
        let container = PersistentContainer(name: "Test", managedObjectModel: try model ?? BlogModel.make())
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: .binary, url: url)]
        try container.loadPersistentStores()
        return container
    }
}

extension TestStack {
    /// A loaded container with one XML store at `url` (the blog model by default).
    public static func xmlContainer(
        _ model: ManagedObjectModel? = nil, at url: URL, configure: (inout PersistentStoreDescription) -> Void = { _ in }
    ) throws -> PersistentContainer {
        XMLStore.register()
        let container = PersistentContainer(name: "Test", managedObjectModel: try model ?? BlogModel.make())
        var description = PersistentStoreDescription(type: .xml, url: url)
        configure(&description)
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        return container
    }
}
