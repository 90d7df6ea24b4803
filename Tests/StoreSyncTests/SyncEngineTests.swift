import Foundation
import StoreCore
import StoreSync
import StoreTestSupport
import XCTest

final class SyncEngineTests: XCTestCase {
    var directory: ScratchDirectory!
    var model: ManagedObjectModel!

    override func setUpWithError() throws {
        directory = try ScratchDirectory()
        model = try SyncTestModel.make()
    }

    func store(_ name: String, _ backend: StoreBackend = .sqlite) throws -> SyncTestStore {
        try SyncTestStore(backend, in: directory, name: name, model: model)
    }

    func testInsertOnOneClientReachesAnother() async throws {
        let server = try store("server"), a = try store("a"), b = try store("b", .xml)
        let engineA = try SyncEngine(local: a.container, server: server.container)
        let engineB = try SyncEngine(local: b.container, server: server.container)
        try a.edit { context in
            let folder = try context.insertNewObject(forEntityName: "Folder")
            try folder.setValue("Inbox", forKey: "name")
            let note = try context.insertNewObject(forEntityName: "Note")
            try note.setValue("Hello", forKey: "title")
            try note.setValue(folder, forKey: "folder")
        }
        let pushed = try await engineA.sync()
        XCTAssertEqual(pushed.pushed.inserted, 2)
        let pulled = try await engineB.sync()
        XCTAssertEqual(pulled.pulled.inserted, 2)
        let notes = try b.edit { context in try context.all("Note").map { try $0.value(forKey: "title") as? String } }
        XCTAssertEqual(notes, ["Hello"])
        let folderName = try b.edit { context in
            try (context.all("Note").first?.value(forKey: "folder") as? ManagedObject)?.value(forKey: "name") as? String
        }
        XCTAssertEqual(folderName, "Inbox")
        XCTAssertEqual(try a.contents(), try b.contents())
        XCTAssertEqual(try a.contents(), try server.contents())
    }
}
