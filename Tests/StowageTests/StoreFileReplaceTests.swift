import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// `replacePersistentStore(at:…withPersistentStoreFrom:…)` and `destroyPersistentStore(at:…)` on
/// every file store type — SQLite, XML, binary and a user-written format on the atomic engine —
/// and their refusals, each of which changes nothing.
final class StoreFileReplaceTests: XCTestCase {
    private let fileBackends: [StoreBackend] = [.sqlite, .xml, .binary, .json]

    // MARK: Helpers

    /// A store of `backend` named `name` holding posts titled `titles`, saved and closed.
    private func makeStore(_ backend: StoreBackend, named name: String, in directory: TemporaryDirectory, titles: [String]) throws -> URL {
        let description = backend.description(named: name, in: directory)
        let url = try XCTUnwrap(description.url)
        try withLoadedStore(backend, at: url) { container in
            let context = container.newBackgroundContext()
            try context.performAndWait {
                for title in titles { try Post(context: context).title = title }
                try context.save()
            }
        }
        return url
    }

    /// Loads the store at `url` in a container of its own for `body`, then removes it.
    private func withLoadedStore<T>(_ backend: StoreBackend, at url: URL, _ body: (PersistentContainer) throws -> T) throws -> T {
        backend.register()
        let container = PersistentContainer(name: "Files", managedObjectModel: try BlogModel.make())
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: backend.type, url: url)]
        try container.loadPersistentStores()
        defer {
            for store in container.persistentStoreCoordinator.persistentStores {
                try? container.persistentStoreCoordinator.removePersistentStore(store)
            }
        }
        return try body(container)
    }

    /// The titles of the posts in the store at `url`, in order.
    private func titles(_ backend: StoreBackend, at url: URL) throws -> [String] {
        try withLoadedStore(backend, at: url) { container in
            let context = container.newBackgroundContext()
            return try context.performAndWait { try context.fetch(FetchRequest<Post>()).map(\.title).sorted() }
        }
    }

    /// Every file and folder under `directory` (hidden ones too), by relative path, with its bytes
    /// — but a SQLite `-shm` file: SQLite's shared memory, where any reader notes what it reads.
    private func contents(of directory: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        let manager = FileManager.default
        func walk(_ folder: URL, _ prefix: String) throws {
            for name in try manager.contentsOfDirectory(atPath: folder.path) {
                let url = folder.appendingPathComponent(name)
                var isDirectory: ObjCBool = false
                _ = manager.fileExists(atPath: url.path, isDirectory: &isDirectory)
                if isDirectory.boolValue {
                    result[prefix + name + "/"] = Data()
                    try walk(url, prefix + name + "/")
                } else if !name.hasSuffix("-shm") {
                    result[prefix + name] = try Data(contentsOf: url)
                }
            }
        }
        try walk(directory, "")
        return result
    }

    /// Asserts `body` throws a ``StoreError`` with `code` and leaves `directory` as it was.
    private func assertRefused(
        _ code: StoreError.Code, leaving directory: TemporaryDirectory, _ what: String,
        file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void
    ) throws {
        let before = try contents(of: directory.url)
        XCTAssertThrowsError(try body(), what, file: file, line: line) { error in
            XCTAssertEqual((error as? StoreError)?.code, code, "\(what): \(error)", file: file, line: line)
        }
        XCTAssertEqual(try contents(of: directory.url), before, "\(what): nothing changed", file: file, line: line)
    }

    private func coordinator() throws -> PersistentStoreCoordinator {
        PersistentStoreCoordinator(managedObjectModel: try BlogModel.make())
    }

    // MARK: Replacing

    func testReplacingWhereNothingIsMakesACopy() throws {
        for backend in fileBackends {
            let directory = try TemporaryDirectory()
            let source = try makeStore(backend, named: "Source", in: directory, titles: ["a", "b"])
            let sourceFiles = try contents(of: directory.url)
            let destination = directory.file("Copy.\(try XCTUnwrap(backend.fileExtension))")
            try coordinator().replacePersistentStore(at: destination, withPersistentStoreFrom: source, type: backend.type)
            XCTAssertEqual(try contents(of: directory.url).filter { sourceFiles[$0.key] != nil }, sourceFiles, "\(backend): the source is untouched")
            XCTAssertEqual(try titles(backend, at: destination), ["a", "b"], "\(backend)")
            XCTAssertEqual(
                try PersistentStoreCoordinator.metadataForPersistentStore(ofType: backend.type, at: destination).storeUUID,
                try PersistentStoreCoordinator.metadataForPersistentStore(ofType: backend.type, at: source).storeUUID,
                "\(backend): the copy is the source's twin, as in Core Data")
            XCTAssertEqual(
                try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasSuffix(".tmp") || $0.hasSuffix(".replacing") }, [],
                "\(backend): no temporary file is left")
        }
    }

    func testReplacingAStoreOfTheTypePutsTheSourcesContentsInItsPlace() throws {
        for backend in fileBackends {
            let directory = try TemporaryDirectory()
            let source = try makeStore(backend, named: "Source", in: directory, titles: ["a"])
            let destination = try makeStore(backend, named: "Destination", in: directory, titles: ["x", "y", "z"])
            try coordinator().replacePersistentStore(at: destination, withPersistentStoreFrom: source, type: backend.type)
            XCTAssertEqual(try titles(backend, at: destination), ["a"], "\(backend)")
            XCTAssertEqual(try titles(backend, at: source), ["a"], "\(backend)")
        }
    }

    /// The source loaded by the coordinator doing the copy, and saved to afterwards: the copy is
    /// the state when it was taken.
    func testReplacingFromALoadedStoreCopiesItsSavedState() throws {
        for backend in fileBackends {
            let directory = try TemporaryDirectory()
            let source = try makeStore(backend, named: "Source", in: directory, titles: ["a"])
            let destination = directory.file("Backup.\(try XCTUnwrap(backend.fileExtension))")
            try withLoadedStore(backend, at: source) { container in
                let context = container.newBackgroundContext()
                try context.performAndWait {
                    try Post(context: context).title = "b"
                    try context.save()
                }
                try container.persistentStoreCoordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: source, type: backend.type)
                try context.performAndWait {
                    try Post(context: context).title = "c"
                    try context.save()
                }
            }
            XCTAssertEqual(try titles(backend, at: destination), ["a", "b"], "\(backend)")
            XCTAssertEqual(try titles(backend, at: source), ["a", "b", "c"], "\(backend)")
        }
    }

    /// Backups of an XML or binary store taken while a context on another thread saves a post at
    /// a time: each opens and holds posts 1…n, a prefix of the saves.
    func testBackupsOfAnAtomicStoreTakenWhileItIsSavedToHoldAPrefixOfTheSaves() throws {
        for backend in [StoreBackend.xml, .binary] {
            let directory = try TemporaryDirectory()
            let ext = try XCTUnwrap(backend.fileExtension)
            let source = try makeStore(backend, named: "Live", in: directory, titles: [])
            try withLoadedStore(backend, at: source) { container in
                let stop = LockedBox(false), saved = LockedBox(0), failure = LockedBox<(any Error)?>(nil)
                let done = DispatchSemaphore(value: 0)
                let saver = container.newBackgroundContext()
                Thread.detachNewThread {
                    defer { done.signal() }
                    do {
                        while !stop.value {
                            let next = saved.value + 1
                            try saver.performAndWait {
                                try Post(context: saver).title = String(next)
                                try saver.save()
                            }
                            saved.value = next
                        }
                    } catch {
                        failure.value = error
                    }
                }
                var seen: [Int] = []
                for round in 0..<3 {
                    while saved.value < 3 * (round + 1) && failure.value == nil { usleep(1000) }
                    let backup = directory.file("Backup\(round).\(ext)")
                    try container.persistentStoreCoordinator.replacePersistentStore(at: backup, withPersistentStoreFrom: source, type: backend.type)
                    let titles = try titles(backend, at: backup)
                    XCTAssertEqual(Set(titles), Set((0..<titles.count).map { String($0 + 1) }), "\(backend): posts 1…n")
                    seen.append(titles.count)
                }
                stop.value = true
                done.wait()
                XCTAssertNil(failure.value, "\(backend): the saves never failed")
                XCTAssertEqual(seen, seen.sorted(), "\(backend)")
                XCTAssertGreaterThanOrEqual(seen.first ?? 0, 3, "\(backend)")
            }
        }
    }

    func testReplacingIsRefusedForBadInputAndChangesNothing() throws {
        for backend in fileBackends {
            let directory = try TemporaryDirectory()
            let ext = try XCTUnwrap(backend.fileExtension)
            let source = try makeStore(backend, named: "Source", in: directory, titles: ["a"])
            let destination = try makeStore(backend, named: "Destination", in: directory, titles: ["x"])
            let other: StoreBackend = backend.type == .xml ? .binary : .xml
            let foreign = try makeStore(other, named: "Foreign", in: directory, titles: ["f"])
            let coordinator = try coordinator()

            try assertRefused(.unknownStoreType, leaving: directory, "\(backend): unknown type") {
                try coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: source, type: PersistentStoreType(rawValue: "nope"))
            }
            try assertRefused(.unsupportedRequest, leaving: directory, "\(backend): in-memory type") {
                try coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: source, type: .inMemory)
            }
            try assertRefused(.io, leaving: directory, "\(backend): no source") {
                try coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: directory.file("Missing.\(ext)"), type: backend.type)
            }
            try assertRefused(.wrongFormat, leaving: directory, "\(backend): source of another type") {
                try coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: foreign, type: backend.type)
            }
            try assertRefused(.wrongFormat, leaving: directory, "\(backend): destination of another type") {
                try coordinator.replacePersistentStore(at: foreign, withPersistentStoreFrom: source, type: backend.type)
            }
            try assertRefused(.invalidOption, leaving: directory, "\(backend): source is destination") {
                try coordinator.replacePersistentStore(at: source, withPersistentStoreFrom: source, type: backend.type)
            }
            try assertRefused(.invalidOption, leaving: directory, "\(backend): not a file URL") {
                try coordinator.replacePersistentStore(
                    at: try XCTUnwrap(URL(string: "https://example.com/store")), withPersistentStoreFrom: source, type: backend.type)
            }
            try assertRefused(.io, leaving: directory, "\(backend): no destination directory") {
                try coordinator.replacePersistentStore(at: directory.file("nowhere/Copy.\(ext)"), withPersistentStoreFrom: source, type: backend.type)
            }
            try withLoadedStore(backend, at: destination) { container in
                try assertRefused(.storeAlreadyLoaded, leaving: directory, "\(backend): destination loaded") {
                    try container.persistentStoreCoordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: source, type: backend.type)
                }
            }
            XCTAssertEqual(try titles(backend, at: destination), ["x"], "\(backend)")
        }
    }

    // MARK: Destroying

    func testDestroyingRemovesTheStoreAndLeavesNothing() throws {
        for backend in fileBackends {
            let directory = try TemporaryDirectory()
            let url = try makeStore(backend, named: "Doomed", in: directory, titles: ["a", "b"])
            let keep = directory.file("unrelated.txt")
            try Data("mine".utf8).write(to: keep)
            try coordinator().destroyPersistentStore(at: url, type: backend.type)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.url.path), ["unrelated.txt"], "\(backend)")
            // A new store at the same place starts empty.
            XCTAssertEqual(try titles(backend, at: url), [], "\(backend)")
        }
    }

    func testDestroyingWhereNothingIsDoesNothing() throws {
        for backend in fileBackends {
            let directory = try TemporaryDirectory()
            try coordinator().destroyPersistentStore(at: directory.file("Never.\(try XCTUnwrap(backend.fileExtension))"), type: backend.type)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.url.path), [], "\(backend)")
        }
    }

    func testDestroyingIsRefusedForBadInputAndChangesNothing() throws {
        for backend in fileBackends {
            let directory = try TemporaryDirectory()
            let url = try makeStore(backend, named: "Kept", in: directory, titles: ["a"])
            let other: StoreBackend = backend.type == .xml ? .binary : .xml
            let foreign = try makeStore(other, named: "Foreign", in: directory, titles: ["f"])
            let notes = directory.file("notes.\(try XCTUnwrap(backend.fileExtension))")
            try Data("my notes, not a store\n".utf8).write(to: notes)
            let coordinator = try coordinator()

            try assertRefused(.unknownStoreType, leaving: directory, "\(backend): unknown type") {
                try coordinator.destroyPersistentStore(at: url, type: PersistentStoreType(rawValue: "nope"))
            }
            try assertRefused(.unsupportedRequest, leaving: directory, "\(backend): in-memory type") {
                try coordinator.destroyPersistentStore(at: url, type: .inMemory)
            }
            try assertRefused(.wrongFormat, leaving: directory, "\(backend): a store of another type") {
                try coordinator.destroyPersistentStore(at: foreign, type: backend.type)
            }
            try assertRefused(.wrongFormat, leaving: directory, "\(backend): not a store") {
                try coordinator.destroyPersistentStore(at: notes, type: backend.type)
            }
            try assertRefused(.wrongFormat, leaving: directory, "\(backend): a directory") {
                try coordinator.destroyPersistentStore(at: directory.url, type: backend.type)
            }
            try withLoadedStore(backend, at: url) { container in
                try assertRefused(.storeAlreadyLoaded, leaving: directory, "\(backend): loaded") {
                    try container.persistentStoreCoordinator.destroyPersistentStore(at: url, type: backend.type)
                }
            }
            XCTAssertEqual(try titles(backend, at: url), ["a"], "\(backend)")
        }
    }

    /// A SQLite store with all its files: a `-wal` with saves not yet checkpointed and a `-shm`
    /// (the store is still open in another coordinator) and the folder of external binary data.
    func testDestroyingASQLiteStoreRemovesItsJournalsAndExternalData() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Photos.sqlite")
        let model = try ManagedObjectModel {
            EntityDescription("Photo") { .attribute("bytes", .binaryData, allowsExternalBinaryDataStorage: true) }
        }
        StoreBackend.sqlite.register()
        let container = PersistentContainer(name: "Photos", managedObjectModel: model)
        var description = PersistentStoreDescription(type: .sqlite, url: url)
        description.setOption(.integer(16), forKey: .sqliteExternalStorageThreshold)
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            try context.insertNewObject(forEntityName: "Photo").setValue(Data(repeating: 7, count: 1000), forKey: "bytes")
            try context.save()
        }
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: directory.url.path))
        XCTAssertEqual(names, ["Photos.sqlite", "Photos.sqlite-wal", "Photos.sqlite-shm", ".Photos_SUPPORT"])

        try PersistentStoreCoordinator(managedObjectModel: model).destroyPersistentStore(at: url, type: .sqlite)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.url.path), [])
    }
}
