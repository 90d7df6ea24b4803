import Foundation
import Stowage
import StoreTestSupport
import XCTest

/// `stowage sync` killed with SIGKILL at random moments (100 times before it ended, by
/// default; `STOWAGE_SYNC_KILLS`), again and again, while the test keeps
/// saving to the local store: the next complete sync leaves the server and another client with
/// every acknowledged change once — nothing duplicated, nothing lost.
final class SyncKillTests: XCTestCase {
    func testSyncKilledAtRandomMomentsLosesAndDuplicatesNothing() throws {
        let kills = ProcessInfo.processInfo.environment["STOWAGE_SYNC_KILLS"].flatMap(Int.init) ?? 100
        let directory = try TemporaryDirectory()
        let model = try SyncCommandTests.model()
        let a = directory.file("a.sqlite"), b = directory.file("b.sqlite"), server = directory.file("server.sqlite")
        let local = try SyncCommandTests.container(a, model)
        let context = local.newBackgroundContext()
        var expected: [String: Int64] = [:]          // title → rank, as acknowledged by saves
        var random = SeededGenerator(state: 0x5EED_5A1C)

        func save(_ step: Int) throws {
            try context.performAndWait {
                let note = try context.insertNewObject(forEntityName: "Note")
                try note.setValue("n\(step)", forKey: "title")
                expected["n\(step)"] = 0
                let notes = try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).sorted { $0.objectID.primaryKey ?? 0 < $1.objectID.primaryKey ?? 0 }
                if let updated = notes.randomElement(using: &random), !updated.isInserted, let title = try updated.value(forKey: "title") as? String {
                    try updated.setValue(Int64(step), forKey: "rank")
                    expected[title] = Int64(step)
                }
                if step % 3 == 0, let deleted = notes.randomElement(using: &random), !deleted.isInserted, let title = try deleted.value(forKey: "title") as? String {
                    context.delete(deleted)
                    expected[title] = nil
                }
                try context.save()
            }
        }

        try save(0)
        let started = Date()
        var (status, output) = try runStowage(["sync", a.path, "--with", server.path])
        XCTAssertEqual(status, 0, output)
        let fullRun = Date().timeIntervalSince(started)

        // Until `kills` syncs were killed before they ended (a sync that ended first counts not).
        // The kill comes at a random moment of a window 1.5 times as long as a sync lasts: the
        // first one's time at first, then, each time a sync ends before the kill, the time it
        // was seen to end by (later syncs move less and run faster than the first).
        var killedMidway = 0
        var step = 0
        var window = fullRun * 1.5
        while killedMidway < kills && step < kills * 4 {
            step += 1
            try save(step)
            let child = Process()
            child.executableURL = try builtTool("stowage")
            child.arguments = ["sync", a.path, "--with", server.path]
            child.standardOutput = FileHandle.nullDevice
            child.standardError = FileHandle.nullDevice
            let launched = Date()
            try child.run()
            Thread.sleep(forTimeInterval: Double.random(in: 0..<window, using: &random))
            if child.isRunning {
                kill(child.processIdentifier, SIGKILL)
                killedMidway += 1
            } else {
                window = Date().timeIntervalSince(launched) * 1.5
            }
            child.waitUntilExit()
        }
        print("SyncKillTests: \(killedMidway) of \(step) syncs killed before they ended")
        XCTAssertEqual(killedMidway, kills, "syncs killed in the middle")

        (status, output) = try runStowage(["sync", a.path, "--with", server.path])
        XCTAssertEqual(status, 0, output)
        _ = try SyncCommandTests.container(b, model)
        (status, output) = try runStowage(["sync", b.path, "--with", server.path])
        XCTAssertEqual(status, 0, output)

        for url in [a, server, b] {
            let reader = try SyncCommandTests.container(url, model).newBackgroundContext()
            let notes = try reader.performAndWait {
                try reader.fetch(FetchRequest<ManagedObject>(entityName: "Note")).map { (try $0.value(forKey: "title") as? String ?? "", try $0.value(forKey: "rank") as? Int64 ?? -1) }
            }
            XCTAssertEqual(notes.count, expected.count, "\(url.lastPathComponent): no note duplicated or lost")
            XCTAssertEqual(Dictionary(notes, uniquingKeysWith: { first, _ in first }), expected, "\(url.lastPathComponent): every acknowledged change, once")
        }
    }
}
