import Foundation
import StoreCore
import StoreTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// I/O faults in the atomic engine's durable replace (`DurableFile`): every call of an XML and a
/// binary save — creating the temporary file, each write, its `fsync`, the rename, the
/// directory's `fsync` — is made to fail in turn (`EIO`, `ENOSPC`), and a power cut is simulated
/// from each call on (nothing after it happens, and a rename not yet flushed to its directory is
/// undone). After each, the store must open and hold exactly the state before the save or the
/// state after it; a save that threw must leave the context's changes in place, and a save that
/// returned without a power cut must be in the file. No temporary file may be left behind.
final class AtomicSaveFaultInjectionTests: XCTestCase {
    /// Records the calls of one save and fails them as its mode says.
    private final class Faults: DurableFile.FaultInjection.Injector, @unchecked Sendable {
        // @unchecked: `calls` is only touched under `lock`.
        enum Mode {
            case count
            case fail(at: Int, errno: Int32)
            case powerCut(at: Int)
        }

        let mode: Mode
        private let lock = NSLock()
        private var calls: [DurableFile.Call] = []

        init(_ mode: Mode) { self.mode = mode }

        var recorded: [DurableFile.Call] { lock.withLock { calls } }

        func error(for call: DurableFile.Call) -> Int32? {
            lock.withLock {
                calls.append(call)
                switch mode {
                case .count: return nil
                case .fail(let at, let code): return calls.count == at ? code : nil
                case .powerCut(let at): return calls.count >= at ? EIO : nil
                }
            }
        }
    }

    private typealias Opener = (URL) throws -> PersistentContainer

    private static let before: Set<String> = ["kept", "changed", "removed"]
    private static let after: Set<String> = ["kept", "changed!", "added"]

    private func titles(in url: URL, open: Opener) throws -> Set<String> {
        let container = try open(url)
        defer { close(container) }
        let context = container.newBackgroundContext()
        return try context.performAndWait { Set(try context.fetch(FetchRequest<Post>()).map(\.title)) }
    }

    private func close(_ container: PersistentContainer) {
        let coordinator = container.persistentStoreCoordinator
        for store in coordinator.persistentStores { try? coordinator.removePersistentStore(store) }
    }

    /// A store holding the "before" posts; returns its file's bytes.
    private func makeStore(at url: URL, open: Opener) throws -> Data {
        let container = try open(url)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for title in Self.before.sorted() { try Post(context: context).title = title }
            try context.save()
        }
        close(container)
        return try Data(contentsOf: url)
    }

    /// Opens the store, makes the "after" changes and saves them with `faults` registered.
    /// Returns whether the save returned, and checks a failed one kept its changes.
    private func saveChanges(at url: URL, open: Opener, faults: Faults) throws -> Bool {
        let container = try open(url)
        defer { close(container) }
        let context = container.newBackgroundContext()
        let directory = url.deletingLastPathComponent()
        DurableFile.FaultInjection.register(faults, for: directory)
        defer { DurableFile.FaultInjection.register(nil, for: directory) }
        return try context.performAndWait {
            let posts = try context.fetch(FetchRequest<Post>())
            for post in posts where post.title == "changed" { post.title = "changed!" }
            for post in posts where post.title == "removed" { context.delete(post) }
            try Post(context: context).title = "added"
            do {
                try context.save()
                return true
            } catch {
                XCTAssertTrue(error is StoreError, "a failed write is a StoreError: \(error)")
                XCTAssertTrue(context.hasChanges, "a failed save keeps the context's changes")
                XCTAssertEqual(context.insertedObjects.count, 1)
                XCTAssertEqual(context.deletedObjects.count, 1)
                return false
            }
        }
    }

    private func walkEveryCall(_ name: String, open: @escaping Opener) throws {
        let directory = try TemporaryDirectory()
        // The calls one save makes.
        let counting = Faults(.count)
        let probe = directory.url.appendingPathComponent("probe-\(name)")
        try FileManager.default.createDirectory(at: probe, withIntermediateDirectories: true)
        _ = try makeStore(at: probe.appendingPathComponent("Store"), open: open)
        XCTAssertTrue(try saveChanges(at: probe.appendingPathComponent("Store"), open: open, faults: counting))
        let calls = counting.recorded
        XCTAssertEqual(calls.first, .create, name)
        XCTAssertTrue(calls.contains(.write) && calls.contains(.fsync) && calls.contains(.rename) && calls.contains(.directoryFsync), "\(name): \(calls)")

        var cases = 0
        for index in 1...calls.count {
            for mode in [Faults.Mode.fail(at: index, errno: EIO), .fail(at: index, errno: ENOSPC), .powerCut(at: index)] {
                cases += 1
                let folder = directory.url.appendingPathComponent("\(name)-\(cases)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let url = folder.appendingPathComponent("Store")
                let original = try makeStore(at: url, open: open)
                let faults = Faults(mode)
                let returned = try saveChanges(at: url, open: open, faults: faults)
                let call = calls[index - 1]
                if case .powerCut = mode, call == .directoryFsync {
                    // The rename was not flushed to the directory: after the cut, the old file is back.
                    try original.write(to: url)
                }
                let found = try titles(in: url, open: open)
                let label = "\(name), \(mode) (call \(index): \(call))"
                XCTAssertTrue(found == Self.before || found == Self.after, "\(label): a mix of two states: \(found.sorted())")
                if case .fail = mode {
                    // Failures before the rename refuse the save and leave the old file; after it, the save stands.
                    XCTAssertEqual(returned, call == .directoryFsync, label)
                    XCTAssertEqual(found, returned ? Self.after : Self.before, label)
                }
                let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".tmp") }
                XCTAssertEqual(leftovers, [], "\(label): temporary files left behind")
            }
        }
        XCTAssertEqual(cases, calls.count * 3)
    }

    func testEveryCallOfAnXMLSaveFailingOrCutLeavesOneWholeState() throws {
        try walkEveryCall("xml") { try TestStack.xmlContainer(at: $0) }
    }

    func testEveryCallOfABinarySaveFailingOrCutLeavesOneWholeState() throws {
        try walkEveryCall("binary") { try TestStack.binaryContainer(at: $0) }
    }
}
