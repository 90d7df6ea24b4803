import Foundation
@testable import ModelFiles
import StoreCore
import StoreTestSupport
import Testing

/// `.momd` bundles as momc writes them: one `.mom` per version, `VersionInfo.plist` naming the
/// current one and recording each version's entity hashes, an `.omo` beside the current one.
@Suite struct CompiledModelBundleTests {
    /// A `.momd` of the fixture Bookmarks package (or of the Blog model twice when the fixtures
    /// are absent), with a binary `VersionInfo.plist` written by the project's plist writer.
    private func sourceVersions() throws -> [ModelVersion] {
        if let package = CoreDataFixtures.model("duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld") {
            return try ManagedObjectModelBundle(contentsOf: package).versions
        }
        return [
            ModelVersion(name: "Blog", url: URL(fileURLWithPath: "/Blog"), model: try BlogModel.make(), warnings: []),
            ModelVersion(name: "Blog 2", url: URL(fileURLWithPath: "/Blog 2"), model: try BlogModel.make(), warnings: []),
        ]
    }

    private func makeBundle(in directory: TemporaryDirectory, current: String?, hashes: Bool = true, omo: Bool = true) throws -> (URL, [ModelVersion]) {
        let versions = try sourceVersions()
        let bundle = directory.url.appendingPathComponent("Model.momd", isDirectory: true)
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        var recorded: [String: PropertyListValue] = [:]
        for version in versions {
            try CompiledModelArchiver.archive(version.model).write(to: bundle.appendingPathComponent(version.name + ".mom"))
            recorded[version.name] = .dictionary(version.model.coreDataEntityVersionHashesByName.mapValues(PropertyListValue.data))
        }
        if omo, let last = versions.last {
            try Data("momv2$not-read".utf8).write(to: bundle.appendingPathComponent(last.name + ".omo"))
        }
        var info: [String: PropertyListValue] = ["NSManagedObjectModel_VersionHashes": .dictionary(hashes ? recorded : [:])]
        if let current { info["NSManagedObjectModel_CurrentVersionName"] = .string(current) }
        try BinaryPropertyListWriter().write(.dictionary(info)).write(to: bundle.appendingPathComponent("VersionInfo.plist"))
        return (bundle, versions)
    }

    @Test func everyVersionLoadsAndVersionInfoNamesTheCurrentOne() throws {
        let directory = try TemporaryDirectory()
        let names = try sourceVersions().map(\.name)
        let currentName = names[names.count / 2]
        let (bundleURL, versions) = try makeBundle(in: directory, current: currentName)
        let bundle = try ManagedObjectModelBundle(contentsOf: bundleURL)
        #expect(bundle.versions.map(\.name) == names, "in version order")
        #expect(bundle.currentVersionName == currentName)
        #expect(bundle.warnings.isEmpty, "the .omo beside its .mom is skipped silently; hashes match: \(bundle.warnings)")
        for (read, source) in zip(bundle.versions, versions) {
            #expect(ModelSummary.difference(ModelSummary.lines(read.model), ModelSummary.lines(source.model)) == nil, "\(read.name)")
        }
        let current = try ManagedObjectModel(contentsOf: bundleURL)
        #expect(ModelSummary.lines(current) == ModelSummary.lines(try #require(versions.first { $0.name == currentName }).model))
        // A store's hashes find their version, as with the source package.
        let metadata = StoreMetadata(storeType: "SQLite", modelVersionHashes: versions[0].model.coreDataEntityVersionHashesByName)
        // (Without the fixtures the two stand-in versions are the same model: either answers.)
        let found = try #require(bundle.version(compatibleWithStoreMetadata: metadata))
        #expect(found.model.coreDataEntityVersionHashesByName == metadata.modelVersionHashes)
        #expect(bundle.version(named: currentName + ".mom")?.name == currentName)
    }

    @Test func withoutACurrentVersionNameTheBundleFallsBackAndSaysWhich() throws {
        let directory = try TemporaryDirectory()
        let (url, versions) = try makeBundle(in: directory, current: nil)
        let bundle = try ManagedObjectModelBundle(contentsOf: url)
        #expect(bundle.currentVersionName == versions.last?.name)
        #expect(bundle.packageWarnings.contains { $0.message.contains("names no current version") }, "\(bundle.packageWarnings)")
        try FileManager.default.removeItem(at: url.appendingPathComponent("VersionInfo.plist"))
        #expect(try ManagedObjectModelBundle(contentsOf: url).packageWarnings.contains { $0.message.contains("no VersionInfo.plist") })
    }

    @Test func aVersionInfoNamingAMissingVersionIsAnError() throws {
        let directory = try TemporaryDirectory()
        let (url, _) = try makeBundle(in: directory, current: "Nowhere")
        let error = try #require(throws: ModelFileError.self) { try ManagedObjectModelBundle(contentsOf: url) }
        #expect(error.code == .malformed)
        #expect(error.message.contains("Nowhere"))
    }

    @Test func hashesThatDifferFromVersionInfoAreAWarning() throws {
        let directory = try TemporaryDirectory()
        let (url, versions) = try makeBundle(in: directory, current: nil)
        var info = try #require(BinaryPropertyListReader().read(Data(contentsOf: url.appendingPathComponent("VersionInfo.plist"))).dictionaryValue)
        let name = try #require(versions.first?.name)
        let entity = try #require(versions.first?.model.entities.first?.name)
        info["NSManagedObjectModel_VersionHashes"] = .dictionary([name: .dictionary([entity: .data(Data(repeating: 7, count: 32))])])
        try BinaryPropertyListWriter().write(.dictionary(info)).write(to: url.appendingPathComponent("VersionInfo.plist"))
        let bundle = try ManagedObjectModelBundle(contentsOf: url)
        #expect(bundle.warnings.contains { $0.message.contains(entity) && $0.message.contains("differ") }, "\(bundle.warnings)")
    }

    @Test func anOptimizedModelWithoutItsMomAndABrokenOldVersionAreWarnings() throws {
        let directory = try TemporaryDirectory()
        let (url, versions) = try makeBundle(in: directory, current: nil, omo: false)
        try Data("momv2$".utf8).write(to: url.appendingPathComponent("Lonely.omo"))
        let broken = try #require(versions.first?.name)
        try Data("bplist00 but not really".utf8).write(to: url.appendingPathComponent(broken + ".mom"))
        let bundle = try ManagedObjectModelBundle(contentsOf: url)
        #expect(!bundle.versions.contains { $0.name == broken })
        #expect(bundle.packageWarnings.contains { $0.message.contains("version \(broken) cannot be read") })
        #expect(bundle.packageWarnings.contains { $0.url.lastPathComponent == "Lonely.omo" })
    }

    @Test func anXMLVersionInfoReadsToo() throws {
        let directory = try TemporaryDirectory()
        let (url, versions) = try makeBundle(in: directory, current: nil)
        let current = try #require(versions.first?.name)
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>NSManagedObjectModel_CurrentVersionName</key><string>\(current)</string>
            <key>NSManagedObjectModel_VersionHashes</key><dict/>
            </dict></plist>
            """.utf8).write(to: url.appendingPathComponent("VersionInfo.plist"))
        #expect(try ManagedObjectModelBundle(contentsOf: url).currentVersionName == current)
    }
}
