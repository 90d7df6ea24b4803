import Foundation
import StoreCore

extension PersistentContainer {
    /// A container whose model is the Xcode model named like it — Core Data's
    /// `NSPersistentContainer(name:)`: `<name>.xcdatamodeld` (its current version) or
    /// `<name>.xcdatamodel` — or, without those, the compiled `<name>.momd` or `<name>.mom` —
    /// found by ``ModelResourceLocator`` among the application's resources.
    ///
    /// For example:
    ///
    /// ```swift
    /// // Package.swift: .executableTarget(name: "App", resources: [.copy("Blog.xcdatamodeld")])
    /// let container = try PersistentContainer(name: "Blog")
    /// try container.loadPersistentStores()
    /// ```
    ///
    /// - Parameters:
    ///   - name: The model's name; the default store is `<name>.sqlite`.
    ///   - modelSearchDirectories: Where to look instead of ``ModelResourceLocator/defaultSearchDirectories()``.
    /// - Throws: ``ModelFileError``: no model of that name (the message lists every place
    ///   searched), or a model file that cannot be read.
    public convenience init(name: String, modelSearchDirectories: [URL]? = nil) throws(ModelFileError) {
        let url = try ModelResourceLocator.modelURL(named: name, searching: modelSearchDirectories)
        self.init(name: name, managedObjectModel: try ManagedObjectModel(contentsOf: url))
    }
}
