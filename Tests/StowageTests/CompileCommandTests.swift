import Foundation
import Stowage
import StoreTestSupport
import XCTest

/// `stowage compile`, run as a user runs it: an Xcode model package becomes a `.momd` that loads
/// into the same versions, current version and Core Data hashes; one version becomes a `.mom`;
/// an existing output is never overwritten.
final class CompileCommandTests: XCTestCase {
    func testAPackageCompilesIntoAMomdThatLoadsTheSameVersions() throws {
        guard let package = CoreDataFixtures.model("duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld") else {
            throw XCTSkip("the Core Data fixtures are not present beside the repository")
        }
        let directory = try TemporaryDirectory()
        let momd = directory.file("BookmarksModel.momd")
        let (status, text) = try runStowage(["compile", package.path, momd.path])
        XCTAssertEqual(status, 0, text)
        let source = try ManagedObjectModelBundle(contentsOf: package)
        let compiled = try ManagedObjectModelBundle(contentsOf: momd)
        XCTAssertEqual(compiled.versions.map(\.name), source.versions.map(\.name))
        XCTAssertEqual(compiled.currentVersionName, source.currentVersionName)
        XCTAssertEqual(compiled.warnings, [], "VersionInfo.plist records the hashes each version has")
        for version in source.versions {
            let read = try XCTUnwrap(compiled.version(named: version.name))
            XCTAssertNil(ModelSummary.difference(ModelSummary.lines(read.model), ModelSummary.lines(version.model)), version.name)
            XCTAssertEqual(read.model.coreDataEntityVersionHashesByName, version.model.coreDataEntityVersionHashesByName, version.name)
        }
    }

    func testOneVersionCompilesIntoAMomAndAnExistingOutputIsLeftAlone() throws {
        let directory = try TemporaryDirectory()
        let modelFile = directory.file("Notes.xcdatamodel")
        try FileManager.default.createDirectory(at: modelFile, withIntermediateDirectories: true)
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="">
                <entity name="Note" representedClassName="Note" syncable="YES">
                    <attribute name="body" optional="YES" attributeType="String"/>
                    <attribute name="created" attributeType="Date" usesScalarValueType="NO"/>
                </entity>
            </model>
            """.utf8).write(to: modelFile.appendingPathComponent("contents"))
        let mom = directory.file("Notes.mom")
        let (status, text) = try runStowage(["compile", modelFile.path, mom.path])
        XCTAssertEqual(status, 0, text)
        let source = try ManagedObjectModel(contentsOf: modelFile)
        XCTAssertNil(ModelSummary.difference(ModelSummary.lines(try ManagedObjectModel(contentsOf: mom)), ModelSummary.lines(source)))

        let before = try Data(contentsOf: mom)
        let (again, refusal) = try runStowage(["compile", modelFile.path, mom.path])
        XCTAssertNotEqual(again, 0)
        XCTAssertTrue(refusal.contains("already exists"), refusal)
        XCTAssertEqual(try Data(contentsOf: mom), before)
    }
}
