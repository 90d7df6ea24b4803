import Foundation
import ModelFiles
import StoreCore
import StoreTestSupport
import XCTest

/// `PersistentContainer(name:)` finds `<name>.xcdatamodeld` among the resource directories, and
/// says where it looked when there is none.
final class ModelResourceLocatorTests: XCTestCase {
    private func makeModel(named name: String, in directory: URL, entity: String) throws {
        let folder = directory.appendingPathComponent("\(name).xcdatamodeld/\(name).xcdatamodel", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("<model><entity name=\"\(entity)\"><attribute name=\"title\" optional=\"YES\" attributeType=\"String\"/></entity></model>".utf8)
            .write(to: folder.appendingPathComponent("contents"))
    }

    func testContainerFindsTheModelInTheFirstDirectoryThatHasIt() throws {
        let directory = try TemporaryDirectory()
        let first = directory.url.appendingPathComponent("App_App.resources", isDirectory: true)
        let second = directory.url.appendingPathComponent("Other.resources", isDirectory: true)
        try FileManager.default.createDirectory(at: first, withIntermediateDirectories: true)
        try makeModel(named: "Blog", in: second, entity: "Post")
        let container = try PersistentContainer(name: "Blog", modelSearchDirectories: [first, second])
        XCTAssertEqual(container.managedObjectModel.entities.map(\.name), ["Post"])
        XCTAssertEqual(container.name, "Blog")
        XCTAssertEqual(container.persistentStoreDescriptions.first?.url?.lastPathComponent, "Blog.sqlite")
    }

    func testMissingModelListsEveryPlaceSearched() throws {
        let directory = try TemporaryDirectory()
        let places = [directory.url.appendingPathComponent("A"), directory.url.appendingPathComponent("B")]
        XCTAssertThrowsError(try PersistentContainer(name: "Nowhere", modelSearchDirectories: places)) { error in
            let error = error as? ModelFileError
            XCTAssertEqual(error?.code, .notFound)
            XCTAssertTrue(places.allSatisfy { error?.message.contains($0.path) == true }, "\(String(describing: error))")
        }
    }

    func testCompiledModelIsFoundWhenNoSourceIs() throws {
        let compiledOnly = try TemporaryDirectory()
        let momd = compiledOnly.url.appendingPathComponent("Blog.momd")
        try FileManager.default.createDirectory(at: momd, withIntermediateDirectories: true)
        XCTAssertEqual(try ModelResourceLocator.modelURL(named: "Blog", searching: [compiledOnly.url]).lastPathComponent, "Blog.momd")
        // The source wins wherever it is.
        let withSource = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: withSource.url.appendingPathComponent("Blog.xcdatamodeld"), withIntermediateDirectories: true)
        XCTAssertEqual(try ModelResourceLocator.modelURL(named: "Blog", searching: [compiledOnly.url, withSource.url]).lastPathComponent, "Blog.xcdatamodeld")
    }

    func testDefaultSearchLooksNextToTheExecutable() {
        let directories = ModelResourceLocator.defaultSearchDirectories()
        let executableDirectory = (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])).deletingLastPathComponent()
        XCTAssertTrue(directories.contains { $0.standardizedFileURL.path == executableDirectory.standardizedFileURL.path }, "\(directories)")
    }
}
