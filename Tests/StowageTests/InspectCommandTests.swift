import Foundation
@testable import SQLiteBackend
import StoreCore
import Stowage
import StoreTestSupport
import XCTest

/// `stowage inspect`, run as a user runs it, on every store Apple's Core Data wrote in the
/// fixtures and on stores of every type Stowage writes.
final class InspectCommandTests: XCTestCase {
    private static let appleStores = [
        "bignerdranch__CoreDataStack/TestModel.sqlite",
        "duckduckgo__BrowserServicesKit/Bookmarks_V1.sqlite",
        "duckduckgo__BrowserServicesKit/Bookmarks_V2.sqlite",
        "duckduckgo__BrowserServicesKit/Bookmarks_V3.sqlite",
        "duckduckgo__BrowserServicesKit/Bookmarks_V4.sqlite",
        "duckduckgo__BrowserServicesKit/Bookmarks_V5.sqlite",
        "duckduckgo__BrowserServicesKit/SyncMetadata_V3.sqlite",
        "fruitsamples__iPhoneCoreDataRecipes/Recipes.sqlite",
        "gilpa__iphone_sqlite_test/CoreDataBooks.sqlite",
        "kean__Pulse/bigstore.pulse",
        "kean__Pulse/logs-package.pulse/logs.sqlite",
    ]


    /// `SELECT Z_ENT, COUNT(*) … GROUP BY Z_ENT` on every entity table of the raw file, by entity name.
    private func rawCounts(_ url: URL) throws -> [String: Int] {
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly, log: .disabled)
        var entities: [(number: Int64, name: String, superNumber: Int64)] = []
        try connection.query("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY") { row in
            entities.append((row.int64(at: 0), row.string(at: 1) ?? "", row.int64(at: 2)))
        }
        var counts: [String: Int] = [:]
        for entity in entities where entity.superNumber == 0 {
            try connection.query("SELECT Z_ENT, COUNT(*) FROM Z\(entity.name.uppercased()) GROUP BY Z_ENT") { row in
                let number = row.int64(at: 0)
                if let name = entities.first(where: { $0.number == number })?.name { counts[name] = Int(row.int64(at: 1)) }
            }
        }
        for entity in entities where counts[entity.name] == nil { counts[entity.name] = 0 }
        return counts
    }

    private func assertInspection(_ output: String, counts: [String: Int], file: StaticString = #filePath, line: UInt = #line) {
        for (entity, count) in counts {
            XCTAssertTrue(output.contains("\n  \(entity): \(count) object"), "\(entity) should have \(count) objects:\n\(output)", file: file, line: line)
            if count > 0, let range = output.range(of: "\n  \(entity): ") {
                let after = output[range.upperBound...].split(separator: "\n").dropFirst(3).first ?? ""
                XCTAssertTrue(after.hasPrefix("    #"), "the first row of \(entity) is printed:\n\(output)", file: file, line: line)
            }
        }
    }

    func testEveryAppleStoreIsInspectedWithoutItsModel() throws {
        let directory = try TemporaryDirectory()
        var inspected = 0
        for (index, path) in Self.appleStores.enumerated() {
            let folder = directory.file("\(index)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            guard let url = try CoreDataFixtures.copyOfStore(path, into: folder) else { continue }
            let counts = try rawCounts(url)
            let (status, output) = try runStowage(["inspect", url.path, "--rows", "2"])
            XCTAssertEqual(status, 0, "\(path): \(output)")
            XCTAssertTrue(output.contains("Type:     sqlite"), output)
            // Core Data's stores since iOS 10 keep a copy of their model, which is used as is.
            let hasCache = !path.hasPrefix("fruitsamples") && !path.hasPrefix("gilpa")
            XCTAssertTrue(output.contains(hasCache ? "Model:    the store's own copy of its model (Z_MODELCACHE" : "Model:    inferred from the store's layout"), "\(path):\n\(output)")
            XCTAssertTrue(output.contains("NSStoreUUID: "), output)
            XCTAssertTrue(output.contains("NSStoreModelVersionHashes."), output)
            assertInspection(output, counts: counts)
            inspected += 1
        }
        if inspected == 0 { throw XCTSkip("the Core Data fixtures are not present") }
    }

    func testTheHandEditedXMLStoreIsInspectedWithItsProblemsReported() throws {
        let source = CoreDataFixtures.root.appendingPathComponent("xmlstores/hexane360__atomlib/template.mslice")
        guard FileManager.default.fileExists(atPath: source.path) else { throw XCTSkip("the Core Data fixtures are not present") }
        let directory = try TemporaryDirectory()
        let url = directory.file("template.mslice")
        try FileManager.default.copyItem(at: source, to: url)
        let before = try Data(contentsOf: url)
        let (status, output) = try runStowage(["inspect", url.path])
        XCTAssertEqual(status, 0, output)
        XCTAssertTrue(output.contains("Type:     xml"), output)
        XCTAssertTrue(output.contains("NSStoreUUID: D1E2667A-3268-45DB-8AA0-DF69A046A0F1"), output)
        // Counted from the file's <object type="…"> elements.
        assertInspection(output, counts: ["Unit": 3, "Aberration": 3, "Detector": 3, "Microscope": 1, "SimParameters": 1, "Structure": 1, "StructureAtom": 0])
        XCTAssertTrue(output.contains("Structure.atoms has no idrefs"), output)
        XCTAssertTrue(output.contains("ids that are not z<n>"), output)
        XCTAssertTrue(output.contains("value (Integer 32)"), output)
        XCTAssertTrue(output.contains("unit=Unit#106"), output)
        XCTAssertEqual(try Data(contentsOf: url), before, "inspecting never writes")
    }

    func testStowageStoresOfEveryTypeAreInspectedWithAndWithoutTheirModel() throws {
        let directory = try TemporaryDirectory()
        for type in ["sqlite", "xml", "binary"] {
            let path = directory.file("Demo.\(type)").path
            XCTAssertEqual(try runStowage(["demo", "--store", type, "--path", path]).status, 0)
            for arguments in [["inspect", path], ["inspect", path, "--model", "demo"]] {
                let (status, output) = try runStowage(arguments)
                XCTAssertEqual(status, 0, "\(arguments): \(output)")
                XCTAssertTrue(output.contains("Type:     \(type)"), output)
                assertInspection(output, counts: ["Post": 2, "Comment": 3])
                XCTAssertTrue(output.contains("title=\"Misty Morning\""), output)
                XCTAssertTrue(output.contains("post=Post#"), output)
            }
        }
    }

    func testAModelFileCanBeGiven() throws {
        let directory = try TemporaryDirectory()
        guard let url = try CoreDataFixtures.copyOfStore("duckduckgo__BrowserServicesKit/Bookmarks_V4.sqlite", into: directory.url) else {
            throw XCTSkip("the Core Data fixtures are not present")
        }
        let model = CoreDataFixtures.root.appendingPathComponent("models/duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld/BookmarksModel 4.xcdatamodel")
        let (status, output) = try runStowage(["inspect", url.path, "--model", model.path])
        XCTAssertEqual(status, 0, output)
        XCTAssertTrue(output.contains("isFolder (Boolean)"), "the model's own names and types:\n\(output)")
        XCTAssertTrue(output.contains("children → BookmarkEntity (ordered to-many, inverse parent)"), output)
        assertInspection(output, counts: try rawCounts(url))
    }

    func testAModelPackageGivenPicksTheVersionThatWroteTheStore() throws {
        guard let package = CoreDataFixtures.model("duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld") else {
            throw XCTSkip("the Core Data fixtures are not present")
        }
        for version in 1...5 {
            let directory = try TemporaryDirectory()
            guard let url = try CoreDataFixtures.copyOfStore("duckduckgo__BrowserServicesKit/Bookmarks_V\(version).sqlite", into: directory.url) else {
                throw XCTSkip("the Core Data fixtures are not present")
            }
            let before = try Data(contentsOf: url)
            let (status, output) = try runStowage(["inspect", url.path, "--model", package.path])
            XCTAssertEqual(status, 0, output)
            let name = version == 1 ? "BookmarksModel" : "BookmarksModel \(version)"
            XCTAssertTrue(output.contains("version \"\(name)\" (the one that wrote the store)"), output)
            assertInspection(output, counts: try rawCounts(url))
            XCTAssertEqual(try Data(contentsOf: url), before, "inspecting changes nothing")
        }
    }

    func testACompiledModelCanBeGiven() throws {
        let directory = try TemporaryDirectory()
        guard let url = try CoreDataFixtures.copyOfStore("duckduckgo__BrowserServicesKit/Bookmarks_V4.sqlite", into: directory.url),
            let package = CoreDataFixtures.model("duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld")
        else { throw XCTSkip("the Core Data fixtures are not present") }
        // A .momd as momc makes it, written with the project's own encoder.
        let momd = directory.url.appendingPathComponent("BookmarksModel.momd", isDirectory: true)
        try FileManager.default.createDirectory(at: momd, withIntermediateDirectories: true)
        for version in try ManagedObjectModelBundle(contentsOf: package).versions {
            try CompiledModelArchiver.archive(version.model).write(to: momd.appendingPathComponent(version.name + ".mom"))
        }
        try BinaryPropertyListWriter().write(["NSManagedObjectModel_CurrentVersionName": "BookmarksModel 4"])
            .write(to: momd.appendingPathComponent("VersionInfo.plist"))
        for model in [momd.path, momd.appendingPathComponent("BookmarksModel 4.mom").path] {
            let (status, output) = try runStowage(["inspect", url.path, "--model", model])
            XCTAssertEqual(status, 0, output)
            XCTAssertTrue(output.contains("Model:    \(model)"), output)
            XCTAssertTrue(output.contains("children → BookmarkEntity (ordered to-many, inverse parent)"), output)
            assertInspection(output, counts: try rawCounts(url))
        }
    }

    func testAFileThatIsNotAStoreGivesAClearErrorAndWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let text = directory.file("notes.txt")
        try Data("just some notes".utf8).write(to: text)
        var (status, output) = try runStowage(["inspect", text.path])
        XCTAssertNotEqual(status, 0)
        XCTAssertTrue(output.contains("not a store file"), output)
        (status, output) = try runStowage(["inspect", directory.file("missing.sqlite").path])
        XCTAssertNotEqual(status, 0)
        XCTAssertTrue(output.contains("cannot be read"), output)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.url.path), ["notes.txt"])
    }
}
