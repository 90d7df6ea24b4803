import CFaultVFS
import CSQLite
import Foundation
import SQLiteBackend
import StoreCore
import StoreTestSupport
import StowageTestKit
import XCTest

/// I/O faults under a SQLite store, through a fault-injecting VFS (`Tests/CFaultVFS`): every
/// counted call of a save — each write, sync, truncate and lock on the store's files — is made to
/// fail in turn (an I/O error of its kind; for writes also `SQLITE_FULL` after writing half the
/// bytes), and a power cut is simulated at each (every write not yet synced is undone, nothing
/// after it reaches the disk). Saves run with history off and on, and a batch insert.
///
/// After each: the store opens and passes `PRAGMA integrity_check`, and holds exactly the state
/// before the save or after it, never a mix; a save that threw is a `StoreError` and left the
/// context's changes in place, and saving them again once the fault has passed succeeds; a save
/// that returned with no power cut is in the file.
final class SQLiteFaultInjectionTests: XCTestCase {
    private static let before: Set<String> = ["kept", "changed", "removed"]
    private static let after: Set<String> = ["kept", "changed!", "added"]

    override func setUp() {
        super.setUp()
        XCTAssertEqual(stowage_faultvfs_install(), SQLITE_OK)
    }

    override func tearDown() {
        stowage_faultvfs_disarm()
        stowage_faultvfs_uninstall()
        super.tearDown()
    }

    private func open(_ url: URL, history: Bool, synchronous: String? = nil) throws -> PersistentContainer {
        try TestStack.sqliteContainer(at: url) { description in
            description.setOption(.boolean(history), forKey: .persistentHistoryTracking)
            if let synchronous { description.setSQLitePragma("synchronous", synchronous) }
        }
    }

    private func close(_ container: PersistentContainer) {
        let coordinator = container.persistentStoreCoordinator
        for store in coordinator.persistentStores { try? coordinator.removePersistentStore(store) }
    }

    private func makeStore(at url: URL, history: Bool) throws {
        let container = try open(url, history: history)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for title in Self.before.sorted() { try Post(context: context).title = title }
            try context.save()
        }
        close(container)
    }

    /// The change each case saves: an ordinary save (update, delete, insert) or a batch insert.
    enum Change: String { case save, batchInsert }

    private func makeChange(_ change: Change, in context: ManagedObjectContext) throws {
        switch change {
        case .save:
            let posts = try context.fetch(FetchRequest<Post>())
            for post in posts where post.title == "changed" { post.title = "changed!" }
            for post in posts where post.title == "removed" { context.delete(post) }
            try Post(context: context).title = "added"
        case .batchInsert:
            break
        }
    }

    /// Saves (or executes) the change; returns whether it returned.
    private func apply(_ change: Change, in context: ManagedObjectContext, label: String) -> Bool {
        context.performAndWait {
            do {
                switch change {
                case .save: try context.save()
                case .batchInsert: _ = try context.execute(BatchInsertRequest(entityName: "Post", objects: Self.batchRows))
                }
                return true
            } catch {
                XCTAssertTrue(error is StoreError, "\(label): a failed write is a StoreError: \(error)")
                if change == .save { XCTAssertTrue(context.hasChanges, "\(label): a failed save keeps the context's changes") }
                return false
            }
        }
    }

    private static let batchCount = 200
    private static var batchRows: [[String: Any]] { (0..<batchCount).map { ["title": "batch \($0)", "views": $0] } }

    /// The posts' titles (batch rows counted as one "batch" entry), read with the plain VFS, and
    /// the integrity check's answer.
    private func inspect(_ url: URL, history: Bool, entity: String = "Post") throws -> (titles: Set<String>, batchRows: Int, integrity: String) {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(url.path, &handle, SQLITE_OPEN_READWRITE, "unix") == SQLITE_OK, let handle else {
            throw StoreError(.io, "cannot open \(url.path)")
        }
        var integrity = ""
        var statement: OpaquePointer?
        if sqlite3_prepare_v2(handle, "PRAGMA integrity_check", -1, &statement, nil) == SQLITE_OK {
            while sqlite3_step(statement) == SQLITE_ROW { integrity += String(cString: sqlite3_column_text(statement, 0)) }
        }
        sqlite3_finalize(statement)
        sqlite3_close_v2(handle)
        guard entity == "Post" else { return ([], 0, integrity) }
        let container = try open(url, history: history)
        defer { close(container) }
        let context = container.newBackgroundContext()
        let titles = try context.performAndWait { try context.fetch(FetchRequest<Post>()).map(\.title) }
        let batch = titles.filter { $0.hasPrefix("batch ") }.count
        return (Set(titles.filter { !$0.hasPrefix("batch ") }), batch, integrity)
    }

    private func walk(_ change: Change, history: Bool) throws {
        let directory = try TemporaryDirectory()
        let name = "\(change.rawValue)\(history ? "-history" : "")"

        // Count the calls the change makes.
        let probe = directory.url.appendingPathComponent("count.sqlite")
        try makeStore(at: probe, history: history)
        let counting = try open(probe, history: history)
        let countingContext = counting.newBackgroundContext()
        try countingContext.performAndWait { try makeChange(change, in: countingContext) }
        stowage_faultvfs_arm(directory.url.path, 0, STOWAGE_FAULT_NONE, 0)
        XCTAssertTrue(apply(change, in: countingContext, label: "\(name): counting"))
        let calls = Int(stowage_faultvfs_calls())
        stowage_faultvfs_disarm()
        close(counting)
        XCTAssertGreaterThan(calls, 2, "\(name): the VFS saw the save's calls")
        // Arming again clears the record: keep the kinds of this save's calls.
        let kinds = (1...max(calls, 1)).map { Int(stowage_faultvfs_call_kind(Int32($0))) }

        var cases = 0, refused = 0, cuts = 0, lostAtCut = 0
        for index in 1...max(calls, 1) {
            let kind = kinds[index - 1]
            let code: Int32 = switch kind {
            // SQLite's extended codes (macros Swift cannot import): SQLITE_IOERR_WRITE, _FSYNC, _TRUNCATE, _LOCK.
            case Int(STOWAGE_CALL_WRITE.rawValue): SQLITE_IOERR | (3 << 8)
            case Int(STOWAGE_CALL_SYNC.rawValue): SQLITE_IOERR | (4 << 8)
            case Int(STOWAGE_CALL_TRUNCATE.rawValue): SQLITE_IOERR | (6 << 8)
            default: SQLITE_IOERR | (15 << 8)
            }
            var modes: [(stowage_fault_mode, Int32)] = [(STOWAGE_FAULT_FAIL, code), (STOWAGE_FAULT_POWER_CUT, 0)]
            if kind == Int(STOWAGE_CALL_WRITE.rawValue) { modes.append((STOWAGE_FAULT_FAIL, SQLITE_FULL)) }
            for (mode, failure) in modes {
                cases += 1
                let url = directory.url.appendingPathComponent("\(name)-\(cases).sqlite")
                let label = "\(name), call \(index) of \(calls) (kind \(kind)), \(mode == STOWAGE_FAULT_POWER_CUT ? "power cut" : "failure \(failure)")"
                try makeStore(at: url, history: history)
                let container = try open(url, history: history)
                let context = container.newBackgroundContext()
                try context.performAndWait { try makeChange(change, in: context) }
                stowage_faultvfs_arm(url.path, Int32(index), mode, failure)
                var returned = apply(change, in: context, label: label)
                let wasCut = stowage_faultvfs_did_cut() != 0
                stowage_faultvfs_disarm()
                if wasCut { cuts += 1 } else if !returned { refused += 1 }
                if !wasCut && !returned {
                    // The fault has passed: the same changes save now.
                    returned = apply(change, in: context, label: "\(label), saved again")
                    XCTAssertTrue(returned, "\(label): saving again after the fault")
                }
                close(container)
                if wasCut {
                    // After the machine stops, shared memory is gone; SQLite rebuilds it from the WAL.
                    try? FileManager.default.removeItem(atPath: url.path + "-shm")
                }
                let found = try inspect(url, history: history)
                XCTAssertEqual(found.integrity, "ok", label)
                switch change {
                case .save:
                    XCTAssertTrue(found.titles == Self.before || found.titles == Self.after, "\(label): a mix: \(found.titles.sorted())")
                    if wasCut && found.titles == Self.before { lostAtCut += 1 }
                    if returned && !wasCut { XCTAssertEqual(found.titles, Self.after, "\(label): a save that returned is in the file") }
                case .batchInsert:
                    XCTAssertEqual(found.titles, Self.before, label)
                    XCTAssertTrue(found.batchRows == 0 || found.batchRows == Self.batchCount, "\(label): \(found.batchRows) batch rows")
                    if wasCut && found.batchRows == 0 { lostAtCut += 1 }
                    if returned && !wasCut { XCTAssertEqual(found.batchRows, Self.batchCount, "\(label): a batch that returned is in the file") }
                }
            }
        }
        // What each walk did, for docs/reliability.md.
        print("\(name): \(calls) calls, \(cases) cases, \(refused) refused then saved again, \(cuts) power cuts (\(lostAtCut) of them before the commit reached the disk)")
        XCTAssertGreaterThan(refused, 0, "\(name): the injected failures reached the store")
        XCTAssertEqual(cuts, calls, "\(name): one power cut per call")
    }

    func testEveryCallOfASaveFailingOrCutLeavesOneWholeState() throws {
        try walk(.save, history: false)
    }

    func testEveryCallOfASaveWithHistoryFailingOrCutLeavesOneWholeState() throws {
        try walk(.save, history: true)
    }

    // MARK: A power cut right after a save returned

    /// Saves, then cuts the power at once: a save that returned must survive. The control run
    /// with `synchronous = OFF` (SQLite then never syncs) must lose it, which shows the harness
    /// sees a missing sync.
    private func cutAfterReturning(_ change: Change, history: Bool, synchronous: String?) throws -> (titles: Set<String>, batchRows: Int) {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("cut.sqlite")
        try makeStore(at: url, history: history)
        let container = try open(url, history: history, synchronous: synchronous)
        let context = container.newBackgroundContext()
        try context.performAndWait { try makeChange(change, in: context) }
        stowage_faultvfs_arm(url.path, 0, STOWAGE_FAULT_NONE, 0)
        XCTAssertTrue(apply(change, in: context, label: "\(change) before the cut"))
        stowage_faultvfs_cut_now()
        close(container)
        stowage_faultvfs_disarm()
        try? FileManager.default.removeItem(atPath: url.path + "-shm")
        let found = try inspect(url, history: history)
        XCTAssertEqual(found.integrity, "ok", "\(change), synchronous \(synchronous ?? "default")")
        return (found.titles, found.batchRows)
    }

    func testAPowerCutRightAfterASaveReturnedKeepsTheSave() throws {
        for history in [false, true] {
            XCTAssertEqual(try cutAfterReturning(.save, history: history, synchronous: nil).titles, Self.after, "history \(history)")
            XCTAssertEqual(try cutAfterReturning(.batchInsert, history: history, synchronous: nil).batchRows, Self.batchCount, "history \(history)")
        }
        // The control: without syncs, the cut takes the save away.
        XCTAssertEqual(try cutAfterReturning(.save, history: false, synchronous: "OFF").titles, Self.before, "synchronous OFF loses the save at a power cut")
    }

    // MARK: Migration

    private static func noteModel(version: Int) throws -> ManagedObjectModel {
        let model = try ManagedObjectModel {
            EntityDescription("Note") {
                .attribute("title", .string)
                if version > 1 {
                    .attribute("pinned", .boolean, optional: false, defaultValue: false)
                    .toMany("tags", destination: "Label", inverse: "notes")
                }
            }
            if version > 1 {
                EntityDescription("Label") {
                    .attribute("name", .string)
                    .toMany("notes", destination: "Note", inverse: "tags")
                }
            }
        }
        if version > 1 { model.migrationSourceModels = [try noteModel(version: 1)] }
        return model
    }

    private func openNotes(_ url: URL, version: Int) throws -> PersistentContainer {
        SQLiteStore.register()
        let container = PersistentContainer(name: "Notes", managedObjectModel: try Self.noteModel(version: version))
        container.persistentStoreDescriptions = [PersistentStoreDescription(url: url)]
        try container.loadPersistentStores()
        return container
    }

    private func makeNotes(at url: URL) throws {
        let container = try openNotes(url, version: 1)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for title in Self.before.sorted() { try context.insertNewObject(forEntityName: "Note").setValue(title, forKey: "title") }
            try context.save()
        }
        close(container)
    }

    func testEveryCallOfAMigrationFailingOrCutLeavesTheOldStoreOrTheMigratedOne() throws {
        let directory = try TemporaryDirectory()
        let probe = directory.url.appendingPathComponent("count.sqlite")
        try makeNotes(at: probe)
        stowage_faultvfs_arm(directory.url.path, 0, STOWAGE_FAULT_NONE, 0)
        close(try openNotes(probe, version: 2))
        let calls = Int(stowage_faultvfs_calls())
        stowage_faultvfs_disarm()
        XCTAssertGreaterThan(calls, 2, "the VFS saw the migration's calls")

        var refused = 0, cuts = 0
        for index in 1...max(calls, 1) {
            for mode in [STOWAGE_FAULT_FAIL, STOWAGE_FAULT_POWER_CUT] {
                let url = directory.url.appendingPathComponent("migrate-\(index)-\(mode.rawValue).sqlite")
                let label = "migration, call \(index) of \(calls), \(mode == STOWAGE_FAULT_POWER_CUT ? "power cut" : "I/O error")"
                try makeNotes(at: url)
                stowage_faultvfs_arm(url.path, Int32(index), mode, SQLITE_IOERR)
                var migrated: PersistentContainer?
                var failure: (any Error)?
                do { migrated = try openNotes(url, version: 2) } catch { failure = error }
                let wasCut = stowage_faultvfs_did_cut() != 0
                stowage_faultvfs_disarm()
                if let migrated { close(migrated) }
                if wasCut {
                    cuts += 1
                    try? FileManager.default.removeItem(atPath: url.path + "-shm")
                } else if let failure {
                    refused += 1
                    XCTAssertTrue(failure is StoreError || failure is MigrationError, "\(label): \(failure)")
                }
                let found = try inspect(url, history: false, entity: "Note")
                XCTAssertEqual(found.integrity, "ok", label)
                // Whichever store is there opens with the new model (migrating now if it must) with every note.
                let container = try openNotes(url, version: 2)
                let context = container.newBackgroundContext()
                let titles = try context.performAndWait {
                    Set(try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).map { try $0.value(forKey: "title") as? String ?? "" })
                }
                close(container)
                XCTAssertEqual(titles, Self.before, label)
            }
        }
        print("migration: \(calls) calls, \(calls * 2) cases, \(refused) refused, \(cuts) power cuts")
        XCTAssertGreaterThan(refused, 0, "the injected failures reached the migration")
    }

    func testEveryCallOfABatchInsertFailingOrCutLeavesOneWholeState() throws {
        try walk(.batchInsert, history: true)
    }
}
