import Foundation
import StoreCore

extension ManagedObjectModel {
    /// Loads the model of a model file, as Core Data's `NSManagedObjectModel(contentsOf:)`:
    /// a `.xcdatamodeld` package (its current version, named by `.xccurrentversion`), a
    /// `.xcdatamodel` folder, or that folder's `contents` file — or a compiled model, as an
    /// application bundle ships it: a `.momd` (its current version, named by
    /// `VersionInfo.plist`) or a `.mom` file.
    ///
    /// A package's other readable versions become the model's ``/StoreCore/ManagedObjectModel/migrationSourceModels``, so a
    /// store saved with an older version is migrated when it is loaded, and the `.xcmappingmodel`s
    /// beside the package that map to this version its ``/StoreCore/ManagedObjectModel/migrationMappingModels``. Use
    /// ``ManagedObjectModelBundle`` for every version of a package and for the warnings the
    /// reader collected.
    ///
    /// For example:
    ///
    /// ```swift
    /// let model = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: "Resources/Blog.xcdatamodeld"))
    /// let container = PersistentContainer(name: "Blog", managedObjectModel: model)
    /// ```
    ///
    /// - Throws: ``ModelFileError`` naming the file (and line) for a missing, malformed or
    ///   unsupported file, or a model that fails its checks.
    public convenience init(contentsOf url: URL) throws(ModelFileError) {
        let contents: URL
        let read: ModelContentsReader.Contents
        let location = try ModelFileLocation(url)
        switch location {
        case .version(_, let file):
            contents = file
            read = try ModelVersion.readContents(file).0
        case .package(let package):
            contents = try ManagedObjectModelBundle.currentVersionFolder(of: package).contents
            read = try ModelVersion.readContents(contents).0
        case .compiledVersion(_, let file):
            contents = file
            read = try CompiledModelFile.readContents(file).0
        case .compiledBundle(let bundle):
            let files = CompiledModelFile.versionFiles(in: bundle)
            let info = try CompiledModelFile.versionInfo(in: bundle)
            let current = try CompiledModelFile.currentVersion(of: bundle, files: files, info: info).name
            contents = files.first { CompiledModelFile.versionName(of: $0) == current } ?? bundle
            read = try CompiledModelFile.readContents(contents).0
        }
        do {
            try self.init(
                configurations: read.configurations, versionIdentifiers: read.versionIdentifiers,
                fetchRequestTemplates: read.fetchRequestTemplates) { read.entities }
        } catch {
            throw ModelFileError(.invalidModel, url: contents, "the model is not consistent: \(error)", modelError: error)
        }
        // A package's other versions are where automatic migration finds the one that wrote a store.
        switch location {
        case .package, .compiledBundle:
            let bundle = try ManagedObjectModelBundle(contentsOf: url)
            migrationSourceModels = bundle.versions.filter { $0.name != bundle.currentVersionName }.map(\.model)
            migrationMappingModels = bundle.currentModel.migrationMappingModels
        case .version, .compiledVersion:
            break
        }
    }
}
