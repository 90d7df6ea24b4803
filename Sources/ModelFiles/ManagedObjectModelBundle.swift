import Foundation
import StoreCore

/// Every version of an Xcode model package (`.xcdatamodeld`) or of the compiled `.momd` Core Data
/// makes of it, with the current one. A single `.xcdatamodel` or `.mom` loads as a bundle of one
/// version.
///
/// For example:
///
/// ```swift
/// let bundle = try ManagedObjectModelBundle(contentsOf: URL(fileURLWithPath: "BookmarksModel.xcdatamodeld"))
/// bundle.versions.map(\.name)       // ["BookmarksModel", "BookmarksModel 2", …, "BookmarksModel 6"]
/// bundle.currentVersion.name        // "BookmarksModel 6" (from .xccurrentversion)
/// let old = bundle.version(named: "BookmarksModel 2")?.model
/// let forStore = bundle.version(compatibleWithStoreMetadata: metadata)   // by version hashes
/// ```
public struct ManagedObjectModelBundle: Sendable {
    /// The package (or folder) loaded.
    public let url: URL
    /// The versions, in Xcode's order (natural order of their names).
    public let versions: [ModelVersion]
    /// The name of the current version.
    public let currentVersionName: String
    /// Warnings about the package itself (its `.xccurrentversion`); each version has its own.
    public let packageWarnings: [ModelFileWarning]

    /// Loads every version of a `.xcdatamodeld` package or `.momd` bundle, or the one version of
    /// a `.xcdatamodel` folder, `contents` file or `.mom` file. A version other than the current
    /// one that cannot be read (an Xcode 3 version, a broken inverse in an old version) is left
    /// out with a package warning naming it and why; every other version stays usable. In a
    /// `.momd`, `VersionInfo.plist` names the current version; a version whose Core Data entity
    /// hashes differ from the ones it records gets a warning.
    ///
    /// - Throws: ``ModelFileError`` when the current version cannot be loaded (its error), or
    ///   for a package with no versions.
    public init(contentsOf url: URL) throws(ModelFileError) {
        switch try ModelFileLocation(url) {
        case .version(let name, let contents):
            self.url = url
            versions = [try ModelVersion.load(name: name, contents: contents)]
            currentVersionName = name
            packageWarnings = []
        case .compiledVersion(let name, let file):
            self.url = url
            versions = [try CompiledModelFile.loadVersion(name: name, file: file)]
            currentVersionName = name
            packageWarnings = []
        case .compiledBundle(let bundle):
            let files = CompiledModelFile.versionFiles(in: bundle)
            let info = try CompiledModelFile.versionInfo(in: bundle)
            let current = try CompiledModelFile.currentVersion(of: bundle, files: files, info: info)
            var loaded: [ModelVersion] = []
            var warnings = current.warnings + CompiledModelFile.orphanOptimizedModels(in: bundle)
            for file in files {
                let name = CompiledModelFile.versionName(of: file)
                do {
                    let version = try CompiledModelFile.loadVersion(name: name, file: file)
                    warnings += CompiledModelFile.hashWarnings(version, info: info)
                    loaded.append(version)
                } catch {
                    if name == current.name { throw error }
                    warnings.append(ModelFileWarning(url: file, line: 0, "version \(name) cannot be read and was left out: \(error.message)"))
                }
            }
            self.url = bundle
            versions = loaded
            currentVersionName = current.name
            packageWarnings = warnings
            Self.linkMigrationSources(loaded, current: current.name)
        case .package(let package):
            let current = try Self.currentVersionFolder(of: package)
            var loaded: [ModelVersion] = []
            var skipped: [ModelFileWarning] = []
            for folder in ModelFileLocation.versionFolders(in: package) {
                let name = ModelFileLocation.versionName(of: folder)
                do {
                    loaded.append(try Self.loadVersion(in: folder, named: name))
                } catch {
                    if name == current.name { throw error }
                    skipped.append(ModelFileWarning(url: folder, line: error.line ?? 0, "version \(name) cannot be read and was left out: \(error.message)"))
                }
            }
            self.url = package
            versions = loaded
            currentVersionName = current.name
            packageWarnings = current.warnings + skipped + Self.linkMappingModels(beside: package, versions: loaded)
            Self.linkMigrationSources(loaded, current: current.name)
        }
    }

    /// Gives the current version's model every other version as its migration sources (only the
    /// current one: models holding each other would never be freed).
    private static func linkMigrationSources(_ versions: [ModelVersion], current: String) {
        guard let model = versions.first(where: { $0.name == current })?.model else { return }
        model.migrationSourceModels = versions.filter { $0.name != current }.map(\.model)
    }

    /// Reads the `.xcmappingmodel`s beside the package (where Xcode projects keep them) and
    /// gives each to the version it maps to (``/StoreCore/ManagedObjectModel/migrationMappingModels``), when
    /// both versions it names are in the package; one that cannot be read is a warning.
    private static func linkMappingModels(beside package: URL, versions: [ModelVersion]) -> [ModelFileWarning] {
        let folder = package.deletingLastPathComponent()
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".xcmappingmodel") }.sorted()
        var warnings: [ModelFileWarning] = []
        func version(at path: String?) -> ModelVersion? {
            guard let path else { return nil }
            let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            return versions.first { $0.name == name }
        }
        for file in files {
            let url = folder.appendingPathComponent(file)
            do {
                let paths = try MappingModelFile.read(url)
                guard let source = version(at: paths.sourceModelPath), let destination = version(at: paths.destinationModelPath) else { continue }
                let mapping = try MappingModelFile.read(url, sourceModel: source.model, destinationModel: destination.model).mapping
                destination.model.migrationMappingModels.append(mapping)
            } catch {
                warnings.append(ModelFileWarning(url: url, line: error.line ?? 0, "mapping model \(file) cannot be read and was left out: \(error.message)"))
            }
        }
        return warnings
    }

    private static func loadVersion(in folder: URL, named name: String) throws(ModelFileError) -> ModelVersion {
        let contents = folder.appendingPathComponent("contents")
        guard FileManager.default.fileExists(atPath: contents.path) else {
            _ = try ModelFileLocation(folder)  // throws the precise reason (Xcode 3 model, …)
            throw ModelFileError(.notFound, url: folder, "the version has no contents file")
        }
        return try ModelVersion.load(name: name, contents: contents)
    }

    /// The current version.
    public var currentVersion: ModelVersion {
        // `init` guarantees a version of that name exists.
        versions.first { $0.name == currentVersionName } ?? versions[versions.count - 1]
    }

    /// The current version's model; its ``/StoreCore/ManagedObjectModel/migrationSourceModels`` are the
    /// other versions, so a container using it migrates stores saved with any of them.
    public var currentModel: ManagedObjectModel { currentVersion.model }

    /// Every warning: the package's, then each version's.
    public var warnings: [ModelFileWarning] { packageWarnings + versions.flatMap(\.warnings) }

    /// The version named `name` ("BookmarksModel 2"; a trailing `.xcdatamodel` or `.mom` is allowed).
    public func version(named name: String) -> ModelVersion? {
        var bare = name.hasSuffix(".xcdatamodel") ? String(name.dropLast(".xcdatamodel".count)) : name
        if bare.hasSuffix(".mom") { bare = String(bare.dropLast(4)) }
        return versions.first { $0.name == bare }
    }

    /// The version whose entity version hashes equal those a store recorded
    /// (``/StoreCore/ManagedObjectModel/isConfiguration(withName:compatibleWithStoreMetadata:)`` for the
    /// whole model); `nil` when none does. Versions that could not be read are not considered.
    public func version(compatibleWithStoreMetadata metadata: StoreMetadata) -> ModelVersion? {
        versions.last { $0.model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) }
    }

    /// The current version's folder and name: `.xccurrentversion`'s `_XCCurrentVersionName`, or
    /// (without that file) the only version, or the one named like the package.
    static func currentVersionFolder(of package: URL) throws(ModelFileError) -> (name: String, contents: URL, warnings: [ModelFileWarning]) {
        let folders = ModelFileLocation.versionFolders(in: package)
        guard !folders.isEmpty else {
            throw ModelFileError(.notFound, url: package, "the package holds no .xcdatamodel version")
        }
        let marker = package.appendingPathComponent(".xccurrentversion")
        if FileManager.default.fileExists(atPath: marker.path) {
            guard let name = try CurrentVersionFile.read(marker) else {
                return fallback(folders, in: package, why: ".xccurrentversion names no version")
            }
            guard let folder = folders.first(where: { $0.lastPathComponent == name || ModelFileLocation.versionName(of: $0) == name }) else {
                throw ModelFileError(.malformed, url: marker, "names the current version '\(name)', which is not in the package")
            }
            return found(folder, [])
        }
        return fallback(folders, in: package, why: "no .xccurrentversion")
    }

    private static func found(_ folder: URL, _ warnings: [ModelFileWarning]) -> (name: String, contents: URL, warnings: [ModelFileWarning]) {
        (ModelFileLocation.versionName(of: folder), folder.appendingPathComponent("contents"), warnings)
    }

    /// Without a named current version: the only version, or the one named like the package,
    /// or the last; a warning says which was taken when there was a choice.
    private static func fallback(_ folders: [URL], in package: URL, why: String) -> (name: String, contents: URL, warnings: [ModelFileWarning]) {
        guard folders.count > 1, let last = folders.last else { return found(folders.first ?? package, []) }
        let packageName = package.deletingPathExtension().lastPathComponent
        let folder = folders.first { ModelFileLocation.versionName(of: $0) == packageName } ?? last
        return found(folder, [ModelFileWarning(url: package, line: 0, "\(why); \(folder.lastPathComponent) is taken as the current version")])
    }
}
