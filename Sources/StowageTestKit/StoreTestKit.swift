import Foundation
import StoreCore
import XCTest

/// The behaviour every Stowage store shares, as one suite any store can run — Stowage's own
/// stores and yours (fluent-kit's `FluentBenchmark` is the model). Give it a name and a factory
/// that describes a fresh store; the kit loads, saves, closes and reopens stores through it and
/// reports every difference as a test failure naming the store and the check.
///
/// For example, in your store's test target:
///
/// ```swift
/// import StowageTestKit
/// import XCTest
///
/// final class MyStoreTests: XCTestCase {
///     func testTheSharedSuite() throws {
///         MyStore.register()
///         let kit = StoreTestKit("my store") { name, directory in
///             PersistentStoreDescription(type: MyStore.type, url: directory.appendingPathComponent("\(name).mine"))
///         }
///         kit.runAll()
///     }
/// }
/// ```
///
/// The checks (each also callable alone): ``checkConformance()`` (objects, every attribute type,
/// relationships of every kind, sub-entities, updates, delete rules, validation — across a
/// reopen), ``checkQueryCases()`` (the shared table of several hundred predicates, which must
/// give the same answers as every other store), ``checkBatchRequests()``, ``checkHistory()``,
/// ``checkMergePolicies()``, ``checkConstraints()``, ``checkConstraintConflicts()``,
/// ``checkObservation()``, ``checkTypedPredicates()`` and ``checkTransientProperties()``.
public struct StoreTestKit: Sendable, CustomStringConvertible {
    /// Makes the description of a fresh store: `name` is unique to the store wanted (use it for
    /// a file name, a database schema…), `directory` a new temporary directory removed afterwards.
    public typealias DescriptionFactory = @Sendable (_ name: String, _ directory: URL) throws -> PersistentStoreDescription

    /// The name failures show.
    public let name: String
    /// Whether a store closed and loaded again from the same description reads back what was
    /// saved (false for an in-memory store, whose checks then skip the reopening).
    public let isPersistent: Bool
    /// Which query cases (by format string) the store may refuse with `FetchError.unsupported`
    /// instead of answering — constructs it documents it cannot run; none by default.
    public let mayRefuseQuery: @Sendable (String) -> Bool
    private let makeDescription: DescriptionFactory

    /// A kit for the store named `name` (in failures), whose fresh stores `description` describes.
    /// - Parameters:
    ///   - name: The store's name, used in failure messages.
    ///   - isPersistent: Whether reopening a store reads back what was saved (false for in-memory
    ///     stores).
    ///   - mayRefuseQuery: Which query cases, by format string, the store may refuse with
    ///     `FetchError.unsupported`.
    ///   - description: Makes the description of a fresh store (a new file or schema) for each check.
    public init(
        _ name: String, isPersistent: Bool = true, mayRefuseQuery: @escaping @Sendable (String) -> Bool = { _ in false },
        description: @escaping DescriptionFactory
    ) {
        self.name = name
        self.isPersistent = isPersistent
        self.mayRefuseQuery = mayRefuseQuery
        self.makeDescription = description
    }

    public var description: String { name }

    /// A fresh store of this kind, loaded in a container for `model`.
    public func makeStack(model: ManagedObjectModel, name: String = "Store", options: [PersistentStoreOption: StoreValue] = [:]) throws -> StoreTestStack {
        let directory = try TemporaryDirectory()
        var description = try makeDescription("\(name)-\(UUID().uuidString.prefix(8))", directory.url)
        for (key, value) in options { description.setOption(value, forKey: key) }
        return try StoreTestStack(kit: self, model: model, description: description, directory: directory)
    }

    /// Every check, one after another.
    public func runAll() {
        checkConformance()
        checkQueryCases()
        checkTypedPredicates()
        checkBatchRequests()
        checkHistory()
        checkMergePolicies()
        checkConstraints()
        checkConstraintConflicts()
        checkBatchedFetching()
        checkObservation()
        checkTransientProperties()
    }

    /// Runs one check, turning a thrown error into a failure that names the store and the check.
    func check(_ name: String, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void) {
        do { try body() } catch { XCTFail("\(self), \(name): \(error)", file: file, line: line) }
    }
}

/// A container on one store that a check can close and open again, as a program does between
/// runs (for a store that is not persistent, reopening keeps the store and starts fresh contexts).
///
/// For example:
///
/// ```swift
/// let stack = try kit.makeStack(model: BlogModel.make())
/// try stack.newContext().performAndWait { … }
/// try stack.reopen()
/// ```
public final class StoreTestStack {
    /// The kit that made the stack.
    public let kit: StoreTestKit
    /// The model the store is loaded with.
    public let model: ManagedObjectModel
    /// The temporary directory given to the description factory, removed with the stack.
    public let directory: TemporaryDirectory
    /// The description the store is loaded (and reloaded) from.
    public let storeDescription: PersistentStoreDescription
    /// The container holding the store; `reopen()` replaces it.
    public private(set) var container: PersistentContainer

    /// Loads `description` for `model`; `directory` is kept alive as long as the stack.
    public init(kit: StoreTestKit, model: ManagedObjectModel, description: PersistentStoreDescription, directory: TemporaryDirectory) throws {
        self.kit = kit
        self.model = model
        self.directory = directory
        storeDescription = description
        container = try Self.load(description, model: model)
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

    /// Closes the store and opens it again in a new container (persistent stores only).
    public func reopen() throws {
        guard kit.isPersistent else { return }
        let coordinator = container.persistentStoreCoordinator
        for store in coordinator.persistentStores { try coordinator.removePersistentStore(store) }
        container = try Self.load(storeDescription, model: model)
    }

    /// A new private-queue context of the current container.
    public func newContext() -> ManagedObjectContext { container.newBackgroundContext() }
}
