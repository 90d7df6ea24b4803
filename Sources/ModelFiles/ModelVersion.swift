import Foundation
import StoreCore

/// One version of a model — an `.xcdatamodel` folder, or a compiled `.mom` file — loaded: its
/// name, the model and the warnings: what the reader read past, and what the model's checks
/// accepted as Core Data does (``/StoreCore/ManagedObjectModel/warnings``).
///
/// For example:
///
/// ```swift
/// let version = try ModelVersion(contentsOf: URL(fileURLWithPath: "Blog.xcdatamodeld/Blog 2.xcdatamodel"))
/// version.name            // "Blog 2"
/// version.model.entities  // the entities
/// version.warnings        // what was not understood, with file and line
/// ```
public struct ModelVersion: Sendable {
    /// The version's name: the folder's name without `.xcdatamodel` (the file's without `.mom`).
    public let name: String
    /// The `contents` file (or `.mom` file, or store) it was read from.
    public let url: URL
    /// The model.
    public let model: ManagedObjectModel
    /// Everything read past, and every flaw the model's checks accepted (an inverse that does not
    /// point back…), with its line.
    public let warnings: [ModelFileWarning]

    /// Loads a `.xcdatamodel` folder, its `contents` file, or a compiled `.mom` file.
    ///
    /// - Throws: ``ModelFileError``: the file is missing, malformed (with the line), of a format
    ///   Stowage cannot read, or describes an inconsistent model.
    public init(contentsOf url: URL) throws(ModelFileError) {
        switch try ModelFileLocation(url) {
        case .version(let name, let contents):
            self = try Self.load(name: name, contents: contents)
        case .compiledVersion(let name, let file):
            self = try CompiledModelFile.loadVersion(name: name, file: file)
        case .package, .compiledBundle:
            throw ModelFileError(.malformed, url: url, "this is a package of versions; load it with ManagedObjectModelBundle(contentsOf:)")
        }
    }

    /// Decodes the bytes of a compiled model (a `.mom` file's contents) that did not come from a
    /// file of their own — embedded in another file, or downloaded.
    ///
    /// For example:
    ///
    /// ```swift
    /// let version = try ModelVersion(compiledModel: bytes, name: "Blog", url: sourceURL)
    /// ```
    ///
    /// - Parameters:
    ///   - data: The `NSKeyedArchiver` archive of an `NSManagedObjectModel`.
    ///   - name: The version's name.
    ///   - url: Where the bytes came from, named in errors and warnings.
    /// - Throws: ``ModelFileError`` — `tooLarge`, `malformed` (not a compiled model) or
    ///   `invalidModel`.
    public init(compiledModel data: Data, name: String, url: URL) throws(ModelFileError) {
        self = try CompiledModelFile.decode(data, name: name, url: url)
    }

    /// A loaded version: `warnings` are the reader's; the model's own (``/StoreCore/ManagedObjectModel/warnings``)
    /// follow them, at the line of the entity or property concerned (from `lines`, else 0).
    init(name: String, url: URL, model: ManagedObjectModel, warnings: [ModelFileWarning], lines: [String: Int] = [:]) {
        self.name = name
        self.url = url
        self.model = model
        self.warnings = warnings + model.warnings.map { warning in
            let line = warning.key.flatMap { key in warning.entity.flatMap { lines["\($0).\(key)"] } } ?? warning.entity.flatMap { lines[$0] }
            return ModelFileWarning(url: url, line: line ?? 0, warning.description)
        }
    }

    static func load(name: String, contents: URL) throws(ModelFileError) -> ModelVersion {
        let (read, warnings) = try readContents(contents)
        let model: ManagedObjectModel
        do {
            model = try ManagedObjectModel(
                configurations: read.configurations, versionIdentifiers: read.versionIdentifiers,
                fetchRequestTemplates: read.fetchRequestTemplates) { read.entities }
        } catch {
            throw ModelFileError(.invalidModel, url: contents, "the model is not consistent: \(error)", modelError: error)
        }
        return ModelVersion(name: name, url: contents, model: model, warnings: warnings, lines: read.lines)
    }

    /// Reads and parses one `contents` file.
    static func readContents(_ contents: URL) throws(ModelFileError) -> (ModelContentsReader.Contents, [ModelFileWarning]) {
        let data: Data
        do {
            data = try Data(contentsOf: contents)
        } catch {
            throw ModelFileError(.notFound, url: contents, "the file cannot be read: \(error.localizedDescription)")
        }
        let root = try ModelXMLElement.parse(data, url: contents)
        var reader = ModelContentsReader(url: contents)
        let read = try reader.read(root)
        return (read, reader.warnings)
    }
}
