import Foundation
import StoreCore

extension ManagedObjectModel {
    /// Loads the model of an Xcode model file, as Core Data's `NSManagedObjectModel(contentsOf:)`:
    /// a `.xcdatamodeld` package (its current version, named by `.xccurrentversion`), a
    /// `.xcdatamodel` folder, or that folder's `contents` file.
    ///
    /// Use ``ManagedObjectModelBundle`` for every version of a package and for the warnings the
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
        switch try ModelFileLocation(url) {
        case .version(_, let file):
            contents = file
        case .package(let package):
            contents = try ManagedObjectModelBundle.currentVersionFolder(of: package).contents
        }
        let (read, _) = try ModelVersion.readContents(contents)
        do {
            try self.init(
                configurations: read.configurations, versionIdentifiers: read.versionIdentifiers,
                fetchRequestTemplates: read.fetchRequestTemplates) { read.entities }
        } catch {
            throw ModelFileError(.invalidModel, url: contents, "the model is not consistent: \(error)", modelError: error)
        }
    }
}
