import Foundation
import StoreCore
import StoreTestSupport
import Synchronization
import XCTest

/// A store written the way a user would, against the public boundary only, through the by-name
/// view of snapshots; it can be told to fail reads of to-many relationships.
final class DictionaryStore: PersistentStore {
    struct Row {
        var version: Int64
        var values: [String: StoreValue]
        var toMany: [String: [ManagedObjectID]]
    }
    private struct State {
        var rows: [ManagedObjectID: Row] = [:]
        var nextKey: Int64 = 1
        var metadata: StoreMetadata
    }
    struct ReadFailure: Error {}

    let identifier = UUID().uuidString
    let type = PersistentStoreType(rawValue: "dictionary")
    let url: URL? = nil
    let configurationName: String? = nil
    let isReadOnly = false
    let model: ManagedObjectModel
    private let state: Synchronization.Mutex<State>  // qualified: the ThreadSanitizer build has StoreCore's too
    /// When set, reading a to-many relationship fails.
    let failsRelationshipReads = Atomic<Bool>(false)

    init(model: ManagedObjectModel) {
        self.model = model
        state = Synchronization.Mutex(State(metadata: StoreMetadata(storeType: "dictionary", modelVersionHashes: model.entityVersionHashesByName)))
    }

    var metadata: StoreMetadata { state.withLock { $0.metadata } }
    func setMetadata(_ metadata: StoreMetadata) throws { state.withLock { $0.metadata = metadata } }

    func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        guard request.predicate == nil, request.sortDescriptors.isEmpty else {
            throw FetchError(.unsupported, "this store answers unfiltered, unsorted fetches only")
        }
        let entity = try model.entity(named: request.entityName)
        let names = request.includesSubentities ? entity.entityAndDescendantNames : [entity.name]
        let ids = state.withLock { $0.rows.keys.filter { names.contains($0.entityName) } }.sorted { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) }
        switch request.resultType {
        case .count: return .count(ids.count)
        case .managedObjectID: return .objectIDs(ids)
        case .managedObject: return .snapshots(try ids.compactMap { try snapshot(for: $0) })
        case .dictionary: throw FetchError(.unsupported, "no dictionary results")
        }
    }

    func snapshot(for objectID: ManagedObjectID) throws -> StoreSnapshot? {
        guard let row = state.withLock({ $0.rows[objectID] }) else { return nil }
        // The by-name view: a user's store need not know the entity's property order.
        return try StoreSnapshot(objectID: objectID, version: row.version, entity: model.entity(named: objectID.entityName), values: row.values)
    }

    func objectIDs(forRelationship name: String, of objectID: ManagedObjectID) throws -> [ManagedObjectID] {
        if failsRelationshipReads.load(ordering: .relaxed) { throw ReadFailure() }
        return state.withLock { $0.rows[objectID]?.toMany[name] ?? [] }
    }

    func newObjectIDs(forEntityNames entityNames: [String]) throws -> [ManagedObjectID] {
        state.withLock { state in
            entityNames.map { name in
                defer { state.nextKey += 1 }
                return ManagedObjectID(entityName: name, storeIdentifier: identifier, primaryKey: state.nextKey)
            }
        }
    }

    func save(_ changes: StoreChangeSet) throws {
        try state.withLock { state in
            for change in changes.updated + changes.deleted where state.rows[change.objectID]?.version != change.version {
                throw MergeConflictError(conflicts: [MergeConflict(
                    objectID: change.objectID, expectedVersion: change.version, storeVersion: state.rows[change.objectID]?.version ?? 0, storeSnapshot: nil)])
            }
            for deleted in changes.deleted { state.rows[deleted.objectID] = nil }
            for inserted in changes.inserted {
                state.rows[inserted.objectID] = Row(version: 1, values: inserted.valuesByName, toMany: inserted.toManyByName)
            }
            for update in changes.updated {
                guard var row = state.rows[update.objectID] else { continue }
                for (index, value) in update.heldValues { row.values[update.entity.properties[index].name] = value }
                row.toMany.merge(update.toManyByName) { $1 }
                row.version += 1
                state.rows[update.objectID] = row
            }
        }
    }

    func unload() throws {}

    /// The to-many IDs the store holds for an object, read past the failure switch.
    func storedToMany(_ name: String, of id: ManagedObjectID) -> [ManagedObjectID] {
        state.withLock { $0.rows[id]?.toMany[name] ?? [] }
    }
}

final class UserWrittenStoreTests: XCTestCase {
    private func makeContainer() throws -> (PersistentContainer, DictionaryStore) {
        let model = try BlogModel.make()
        let store = DictionaryStore(model: model)
        let type = PersistentStoreType(rawValue: "dictionary-\(store.identifier)")
        PersistentStoreRegistry.register(type) { _ in store }
        let container = PersistentContainer(name: "Dictionary", managedObjectModel: model)
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: type)]
        try container.loadPersistentStores()
        return (container, store)
    }

    func testAStoreWrittenByNameSavesAndFetchesThroughContexts() throws {
        let (container, _) = try makeContainer()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let post = try Post(context: context)
            post.title = "By name"
            let tag = try Tag(context: context)
            tag.name = "travel"
            post.tags.insert(tag)
            try context.save()
            post.title = "Renamed"
            try context.save()
        }
        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            let posts = try reader.fetch(FetchRequest<Post>())
            XCTAssertEqual(posts.map(\.title), ["Renamed"])
            XCTAssertEqual(posts.first?.tags.map(\.name), ["travel"])
        }
    }

    func testAToManyTheStoreCannotReadIsNeverSavedAsEmpty() throws {
        let (container, store) = try makeContainer()
        let writer = container.newBackgroundContext()
        let (postID, tagIDs): (ManagedObjectID, [ManagedObjectID]) = try writer.performAndWait {
            let post = try Post(context: writer)
            post.title = "Tagged"
            for name in ["a", "b", "c"] {
                let tag = try Tag(context: writer)
                tag.name = name
                post.tags.insert(tag)
            }
            try writer.save()
            return (post.objectID, post.tags.map(\.objectID))
        }
        XCTAssertEqual(Set(store.storedToMany("tags", of: postID)), Set(tagIDs))

        store.failsRelationshipReads.store(true, ordering: .relaxed)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let post = try XCTUnwrap(context.existingObject(with: postID) as? Post)
            XCTAssertTrue(post.tags.isEmpty, "a relationship that cannot be read reads as empty")
            XCTAssertThrowsError(try post.value(forKey: "tags"), "reading it by key reports the store's error")
            let tag = try Tag(context: context)
            tag.name = "d"
            post.tags.insert(tag)
            XCTAssertThrowsError(try context.save(), "the save refuses to write a relationship it could not read") { error in
                XCTAssertNotNil(error as? StoreError)
            }
        }
        XCTAssertEqual(Set(store.storedToMany("tags", of: postID)), Set(tagIDs), "no link was lost")

        store.failsRelationshipReads.store(false, ordering: .relaxed)
        try context.performAndWait {
            let post = try XCTUnwrap(context.existingObject(with: postID) as? Post)
            let tag = try Tag(context: context)
            tag.name = "e"
            post.tags.insert(tag)
            try context.save()
            XCTAssertEqual(post.tags.count, 4, "once the store answers, the relationship is read and changed in full")
        }
        XCTAssertEqual(store.storedToMany("tags", of: postID).count, 4)
    }
}
