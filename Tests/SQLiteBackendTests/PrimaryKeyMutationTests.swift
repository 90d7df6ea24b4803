import Foundation
@testable import SQLiteBackend
import StoreCore
import StoreSQL
import StoreTestSupport
import XCTest

/// Apple-written stores with a mutated `Z_PRIMARYKEY` (super-entity numbers pointing anywhere,
/// entity numbers changed, rows duplicated) — the mutations that once made inspection loop
/// forever. Every mutated file must be inspected, opened or refused with a typed error, and the
/// test finishing at all is the check that nothing loops.
final class PrimaryKeyMutationTests: XCTestCase {
    private static let stores = [
        "duckduckgo__BrowserServicesKit/Bookmarks_V5.sqlite",
        "duckduckgo__BrowserServicesKit/SyncMetadata_V3.sqlite",
        "fruitsamples__iPhoneCoreDataRecipes/Recipes.sqlite",
        "bignerdranch__CoreDataStack/TestModel.sqlite",
    ]

    func testMutatedPrimaryKeyTablesNeverHang() throws {
        var generator = SeededGenerator(state: 2_026)
        var outcomes: [String: Int] = [:]
        for path in Self.stores {
            let directory = try TemporaryDirectory()
            guard let pristine = try CoreDataFixtures.copyOfStore(path, into: directory.url) else {
                throw XCTSkip("the Core Data fixtures are not present")
            }
            // Fold the WAL in, so every mutation starts from one file.
            try SQLiteConnection(path: pristine.path, mode: .readWrite, log: .disabled).execute("PRAGMA wal_checkpoint(TRUNCATE)")
            let numbers = try SQLiteConnection(path: pristine.path, mode: .readOnly, log: .disabled)
            var entities: [Int64] = []
            try numbers.query("SELECT Z_ENT FROM Z_PRIMARYKEY") { entities.append($0.int64(at: 0)) }
            guard let highest = entities.max() else { continue }
            for round in 0..<40 {
                let copy = directory.file("mutated-\(round).sqlite")
                try? FileManager.default.removeItem(at: copy)
                try FileManager.default.copyItem(at: pristine, to: copy)
                let connection = try SQLiteConnection(path: copy.path, mode: .readWrite, log: .disabled)
                for _ in 0..<Int.random(in: 1...3, using: &generator) {
                    let entity = entities.randomElement(using: &generator) ?? 1
                    let value = Int64.random(in: -1...(highest + 1), using: &generator)
                    // (A mutation SQLite refuses — a number already taken — is simply not made.)
                    switch Int.random(in: 0..<3, using: &generator) {
                    case 0: try? connection.execute("UPDATE Z_PRIMARYKEY SET Z_SUPER = \(value) WHERE Z_ENT = \(entity)")
                    case 1: try? connection.execute("UPDATE Z_PRIMARYKEY SET Z_ENT = \(value) WHERE Z_ENT = \(entity)")
                    default:
                        try? connection.execute("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) SELECT \(highest + 10), Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = \(entity)")
                    }
                }
                do {
                    _ = try SQLiteModelInference(url: copy).infer()
                    outcomes["inspected", default: 0] += 1
                } catch let error as StoreError {
                    outcomes[error.code.name, default: 0] += 1
                } catch {
                    XCTFail("\(path), round \(round): an untyped error \(error)")
                }
            }
        }
        XCTAssertGreaterThan(outcomes["corrupt"] ?? 0, 0, "\(outcomes): the damage was seen")
    }
}
