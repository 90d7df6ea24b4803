import Foundation
@testable import ModelFiles
import StoreCore
import StoreTestSupport
import Testing

/// Compiled models (`.mom`, `.momd`) read into the same model the Xcode model file describes.
/// The compiled files are written by ``CompiledModelArchiver`` with the project's own keyed-archive
/// encoder, laid out as momc lays them out; no Apple-written file is committed.
@Suite struct CompiledModelTests {
    /// Every version of every fixture model package (and bare `.xcdatamodel`).
    static func fixtureVersions() throws -> [ModelVersion] {
        guard let root = CoreDataFixtures.model("") else { return [] }
        var versions: [ModelVersion] = []
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        var packages: [URL] = []
        while let url = enumerator?.nextObject() as? URL {
            if url.pathExtension == "xcdatamodeld" || (url.pathExtension == "xcdatamodel" && url.deletingLastPathComponent().pathExtension != "xcdatamodeld") {
                packages.append(url)
                enumerator?.skipDescendants()
            }
        }
        for package in packages.sorted(by: { $0.path < $1.path }) {
            versions += try ManagedObjectModelBundle(contentsOf: package).versions
        }
        return versions
    }

    private func decode(_ data: Data, name: String = "Model") throws -> ModelVersion {
        try CompiledModelFile.decode(data, name: name, url: URL(fileURLWithPath: "/compiled/\(name).mom"))
    }

    @Test(.enabled(if: CoreDataFixtures.arePresent, "the Core Data fixtures are not present beside the repository"))
    func everyFixtureModelReadsBackFromItsCompiledFormUnchanged() throws {
        let versions = try Self.fixtureVersions()
        try #require(!versions.isEmpty, "the Core Data fixtures are not present beside the repository")
        for version in versions {
            var archiver = CompiledModelArchiver()
            let compiled = try decode(try archiver.encode(version.model), name: version.name)
            var expected = ModelSummary.lines(version.model)
            expected.removeAll { line in archiver.skippedTemplates.contains { line.hasPrefix("template \($0) ") } }
            let difference = ModelSummary.difference(ModelSummary.lines(compiled.model), expected)
            #expect(difference == nil, "\(version.url.path): \(difference ?? "")")
            #expect(compiled.model.coreDataEntityVersionHashesByName == version.model.coreDataEntityVersionHashesByName, "\(version.url.path)")
            #expect(compiled.warnings.isEmpty, "\(version.url.path): \(compiled.warnings)")
        }
    }

    /// Models compiled before iOS 11: entities in a plain dictionary, indexes as unnamed
    /// compound indexes and indexed attributes; flags only in `_P`; sub-entities listing their
    /// inherited properties too.
    @Test(.enabled(if: CoreDataFixtures.arePresent, "the Core Data fixtures are not present beside the repository"))
    func theOlderCompiledLayoutReadsTheSameModelButIndexNames() throws {
        let versions = try Self.fixtureVersions()
        try #require(!versions.isEmpty, "the Core Data fixtures are not present beside the repository")
        let options = CompiledModelArchiver.Options(oldLayout: true, listInheritedProperties: true, flagsOnlyInP: true)
        for version in versions {
            var archiver = CompiledModelArchiver(options: options)
            let compiled = try decode(try archiver.encode(version.model), name: version.name)
            func withoutIndexes(_ lines: [String]) -> [String] { lines.filter { !$0.hasPrefix("  index ") } }
            var expected = withoutIndexes(ModelSummary.lines(version.model))
            expected.removeAll { line in archiver.skippedTemplates.contains { line.hasPrefix("template \($0) ") } }
            let difference = ModelSummary.difference(withoutIndexes(ModelSummary.lines(compiled.model)), expected)
            #expect(difference == nil, "\(version.url.path): \(difference ?? "")")
            for entity in version.model.entities {
                let indexed = Set(entity.indexes.map { $0.elements.map(\.property) })
                let read = Set(try #require(compiled.model.entitiesByName[entity.name]).indexes.map { $0.elements.map(\.property) })
                #expect(read == indexed, "indexes of \(entity.name) in \(version.url.path)")
            }
            #expect(compiled.model.coreDataEntityVersionHashesByName == version.model.coreDataEntityVersionHashesByName, "\(version.url.path)")
        }
    }

    @Test func aMomFileLoadsThroughEveryEntryPoint() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Blog.mom")
        try CompiledModelArchiver.archive(try BlogModel.make()).write(to: url)
        let expected = ModelSummary.lines(try BlogModel.make())
        #expect(ModelSummary.difference(ModelSummary.lines(try ManagedObjectModel(contentsOf: url)), expected) == nil)
        let version = try ModelVersion(contentsOf: url)
        #expect(version.name == "Blog")
        #expect(ModelSummary.lines(version.model) == expected)
        let bundle = try ManagedObjectModelBundle(contentsOf: url)
        #expect(bundle.versions.map(\.name) == ["Blog"])
        #expect(bundle.currentVersionName == "Blog")
        let container = try PersistentContainer(name: "Blog", modelSearchDirectories: [directory.url])
        #expect(ModelSummary.lines(container.managedObjectModel) == expected, "found by name among the resources")
    }
}
