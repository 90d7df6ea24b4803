import Foundation
import Stowage
import XCTest

/// docs/model-files.md: a model package read by path (relative to the current directory, as the
/// page has it), its versions, and the version that wrote a store.
final class DocsModelFilesExamples: XCTestCase {
    func testReadingAModelPackage() throws {
        let directory = try ExampleStack.makeDirectory()
        let previous = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(directory.path))
        defer {
            _ = FileManager.default.changeCurrentDirectoryPath(previous)
            ExampleStack.removeDirectory(directory)
        }
        let packageURL = try ExampleModelPackage.write(in: directory.appendingPathComponent("Resources", isDirectory: true))
        // A store saved with "Blog 2".
        let storeURL = directory.appendingPathComponent("Blog.sqlite")
        let older = try XCTUnwrap(ManagedObjectModelBundle(contentsOf: packageURL).version(named: "Blog 2")).model
        ExampleStack.close(try ExampleStack.container(PersistentStoreDescription(url: storeURL), model: older))
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(at: storeURL)
        _ = printed.take()

        let model = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: "Resources/Blog.xcdatamodeld"))  // current version

        let bundle = try ManagedObjectModelBundle(contentsOf: URL(fileURLWithPath: "Resources/Blog.xcdatamodeld"))
        print(bundle.versions.map(\.name))            // ["Blog", "Blog 2", "Blog 3"]
        print(bundle.currentVersionName)              // Blog 3: from .xccurrentversion
        let second = bundle.version(named: "Blog 2")?.model
        print(bundle.version(compatibleWithStoreMetadata: metadata)?.name ?? "none")   // the version a store was written with
        print(bundle.warnings)                        // []: what was read past, with file and line
        print(model.migrationSourceModels.count)      // 2: the other versions, for migration

        XCTAssertEqual(printed.take(), [#"["Blog", "Blog 2", "Blog 3"]"#, "Blog 3", "Blog 2", "[]", "2"])
        XCTAssertNotNil(second?.entitiesByName["Post"]?.attributesByName["subtitle"])
        XCTAssertNil(second?.entitiesByName["Post"]?.attributesByName["rating"])
        XCTAssertNotNil(model.entitiesByName["Post"]?.attributesByName["rating"])
    }

    /// The page's second example needs an application's resources and compiled models (Xcode
    /// writes those), so it is compiled here but not run; ModelFilesTests reads real `.momd`s.
    private func openFromAnAppsResources() throws -> (PersistentContainer, ManagedObjectModel, ManagedObjectModelBundle, ModelVersion) {
        let container = try PersistentContainer(name: "Blog")   // finds Blog.xcdatamodeld among the resources

        // Compiled models: the same calls.
        let compiled = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: "Blog.app/Blog.momd"))   // VersionInfo.plist's current version
        let versions = try ManagedObjectModelBundle(contentsOf: URL(fileURLWithPath: "Blog.app/Blog.momd"))
        let one = try ModelVersion(contentsOf: URL(fileURLWithPath: "Blog.momd/Blog 2.mom"))
        return (container, compiled, versions, one)
    }
}
