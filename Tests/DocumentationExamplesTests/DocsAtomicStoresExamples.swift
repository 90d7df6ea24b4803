import Foundation
import Stowage
import XCTest

/// docs/atomic-stores.md, "Writing your own format": a JSON format by name, registered and used
/// for the Blog store; and the by-index reading and writing a fast format does.
final class DocsAtomicStoresExamples: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try ExampleStack.makeDirectory()
    }

    override func tearDown() {
        ExampleStack.removeDirectory(directory)
        super.tearDown()
    }

    /// The file the page's format writes: the store's UUID, its next key and its objects, by name.
    struct Document: Codable {
        var uuid: String
        var nextKey: Int64
        var objects: [Object]

        struct Object: Codable {
            var entity: String
            var key: Int64
            var attributes: [String: Value]
            var relationships: [String: [Int64]]

            /// The engine's object, by name (resolved and checked when the store loads).
            var object: AtomicStoreObject {
                AtomicStoreObject(entityName: entity, primaryKey: key, attributes: attributes.mapValues(\.storeValue), relationships: relationships)
            }
        }

        /// An attribute's value, tagged with its kind.
        enum Value: Codable {
            case integer(Int64), double(Double), float(Float), decimal(Decimal), string(String), boolean(Bool)
            case date(Date), data(Data), uuid(UUID), uri(URL)

            init(_ value: StoreValue) throws {
                switch value {
                case .integer(let v): self = .integer(v)
                case .double(let v): self = .double(v)
                case .float(let v): self = .float(v)
                case .decimal(let v): self = .decimal(v)
                case .string(let v): self = .string(v)
                case .boolean(let v): self = .boolean(v)
                case .date(let v): self = .date(v)
                case .data(let v): self = .data(v)
                case .uuid(let v): self = .uuid(v)
                case .uri(let v): self = .uri(v)
                case .null, .objectID: throw StoreError(.unsupportedRequest, "this format stores no \(value.kindName) attribute")
                }
            }

            var storeValue: StoreValue {
                switch self {
                case .integer(let v): .integer(v)
                case .double(let v): .double(v)
                case .float(let v): .float(v)
                case .decimal(let v): .decimal(v)
                case .string(let v): .string(v)
                case .boolean(let v): .boolean(v)
                case .date(let v): .date(v)
                case .data(let v): .data(v)
                case .uuid(let v): .uuid(v)
                case .uri(let v): .uri(v)
                }
            }
        }

        init(_ file: AtomicStoreFile) throws {
            uuid = file.metadata.storeUUID
            nextKey = file.nextPrimaryKey
            objects = try file.objects.map { object in
                Object(entity: object.entityName, key: object.primaryKey,
                       attributes: try object.attributes.filter { !$0.value.isNull }.mapValues(Value.init),
                       relationships: object.relationships)
            }
        }
    }

    func testAFormatOfYourOwn() throws {
        let url = directory.appendingPathComponent("Blog.json")
        let container = PersistentContainer(name: "Blog", managedObjectModel: try ExampleStack.model())

        // The shared suite's own JSON format registers under "json" too; its tests register it
        // again before each use, so this one replacing it for a moment changes none of them.
        struct JSONStoreFormat: AtomicStoreFormat {
            func read(_ data: Data, model: ManagedObjectModel) throws -> AtomicStoreFile {
                let document = try JSONDecoder().decode(Document.self, from: data)
                return AtomicStoreFile(metadata: StoreMetadata(storeUUID: document.uuid, storeType: "json"),
                                       nextPrimaryKey: document.nextKey, objects: document.objects.map(\.object))
            }
            func write(_ file: AtomicStoreFile, model: ManagedObjectModel) throws -> Data {
                try JSONEncoder().encode(Document(file))
            }
        }

        AtomicStore.register(PersistentStoreType(rawValue: "json"), format: JSONStoreFormat())
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: PersistentStoreType(rawValue: "json"), url: url)]
        try container.loadPersistentStores()

        let writer = container.newBackgroundContext()
        try writer.performAndWait {
            try ExampleStack.seed(writer)
            try writer.save()
        }
        ExampleStack.close(container)

        let document = try JSONDecoder().decode(Document.self, from: Data(contentsOf: url))
        XCTAssertEqual(document.objects.filter { $0.entity == "Post" }.count, 3)

        let again = PersistentContainer(name: "Blog", managedObjectModel: try ExampleStack.model())
        again.persistentStoreDescriptions = [PersistentStoreDescription(type: PersistentStoreType(rawValue: "json"), url: url)]
        try again.loadPersistentStores()
        let posts = try again.viewContext.fetch(FetchRequest<Post>(entityName: "Post", predicate: "title == 'Misty Morning'"))
        XCTAssertEqual(posts.first?.comments.map(\.text).sorted(), ["Lovely light", "Where is this?"])
        ExampleStack.close(again)
    }

    func testABackupOfAStoreInUseThenDestroyed() throws {
        let storeURL = directory.appendingPathComponent("Blog.binarystore")
        let backupURL = directory.appendingPathComponent("Backup.binarystore")
        let container = try ExampleStack.seeded(PersistentStoreDescription(type: .binary, url: storeURL))
        let coordinator = container.persistentStoreCoordinator

        try coordinator.replacePersistentStore(at: backupURL, withPersistentStoreFrom: storeURL, type: .binary)  // while in use
        try coordinator.destroyPersistentStore(at: backupURL, type: .binary)

        XCTAssertFalse(FileManager.default.fileExists(atPath: backupURL.path), "destroyed")
        try coordinator.replacePersistentStore(at: backupURL, withPersistentStoreFrom: storeURL, type: .binary)
        let copy = try ExampleStack.container(PersistentStoreDescription(type: .binary, url: backupURL))
        XCTAssertEqual(try copy.viewContext.count(for: FetchRequest<Post>()), 3, "the backup holds the store's posts")
        ExampleStack.close(copy)
        ExampleStack.close(container)
    }

    /// The page's by-index fragment, with the names it uses given: `post` is the Post entity,
    /// `key`, `decodedTitle` and `authorKey` what a reader decoded, `encode` what a writer calls.
    private func readAndWriteByIndex(post: EntityDescription, key: Int64, decodedTitle: String, authorKey: Int64?,
                                     file: AtomicStoreFile, encode: (StoreValue, Int64?) -> Void) throws -> AtomicStoreObject {
        // reading: once per entity
        guard let title = post.propertyIndexes["title"], let author = post.propertyIndexes["author"] else {
            throw StoreError(.incompatibleModel, "the model's Post has no title or no author")
        }
        // then per object
        var object = AtomicStoreObject(entity: post, primaryKey: key)
        object[title] = .string(decodedTitle)
        object.setTargetKey(authorKey, at: author)
        // writing: the engine's objects are laid out by `model`'s entities
        for object in file.objects where object.entity === post {
            encode(object[title], object.targetKey(at: author))
        }
        return object
    }

    func testReadingAndWritingByIndex() throws {
        let model = try ExampleStack.model()
        let post = try model.entity(named: "Post")
        let stored = try AtomicStoreObject(entity: post, primaryKey: 7, attributes: ["title": .string("Stored")], relationships: ["author": [2]])
        let file = AtomicStoreFile(metadata: StoreMetadata(storeUUID: "U", storeType: "json"), nextPrimaryKey: 8, objects: [stored])
        var written: [(StoreValue, Int64?)] = []
        let object = try readAndWriteByIndex(post: post, key: 3, decodedTitle: "Read", authorKey: 1, file: file) { written.append(($0, $1)) }

        XCTAssertEqual(object, try AtomicStoreObject(entity: post, primaryKey: 3, attributes: ["title": .string("Read")], relationships: ["author": [1]]),
                       "an object built by index equals the same object built by name")
        XCTAssertEqual(written.map(\.0), [.string("Stored")])
        XCTAssertEqual(written.map(\.1), [2])
    }
}
