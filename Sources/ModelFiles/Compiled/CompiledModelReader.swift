import Foundation
import StoreCore

/// Reads a compiled Core Data model — a `.mom` file, or the model cache Core Data keeps in a
/// SQLite store's `Z_MODELCACHE` — into the same entity descriptions, configurations and fetch
/// request templates ``ModelContentsReader`` reads from Xcode's XML, collecting a
/// ``ModelFileWarning`` for everything it reads past.
///
/// A compiled model is an `NSKeyedArchiver` archive of `NSManagedObjectModel`,
/// `NSEntityDescription`, `NSAttributeDescription`, `NSRelationshipDescription`, … It is read
/// through ``KeyedArchiveGraph``: classes are matched by name and their fields read one by one;
/// nothing is ever instantiated by name, and values (defaults, user info) decode through
/// ``/StoreCore/KeyedArchive``'s allow-list of Foundation value classes. docs/model-files.md lists which
/// archive key becomes what.
///
/// For example:
///
/// ```swift
/// var reader = try CompiledModelReader(data: Data(contentsOf: momURL), url: momURL)
/// let contents = try reader.read()
/// let model = try ManagedObjectModel(configurations: contents.configurations) { contents.entities }
/// ```
struct CompiledModelReader {
    /// The most bytes a compiled model may have (Apple's largest are a few hundred kilobytes).
    static let maxFileSize = 64 << 20

    let url: URL
    let graph: KeyedArchiveGraph
    private(set) var warnings: [ModelFileWarning] = []

    init(data: Data, url: URL) throws(ModelFileError) {
        self.url = url
        guard data.count <= Self.maxFileSize else {
            throw ModelFileError(.tooLarge, url: url, "the compiled model has \(data.count) bytes, more than the \(Self.maxFileSize) a model may have")
        }
        do {
            graph = try KeyedArchiveGraph(data, limits: .init(maxDepth: 64, maxValueCount: 1_000_000))
        } catch {
            throw ModelFileError(.malformed, url: url, "not a compiled Core Data model (an NSKeyedArchiver archive): \(error)")
        }
    }

    mutating func warn(_ message: String) {
        warnings.append(ModelFileWarning(url: url, line: 0, message))
    }

    func malformed(_ message: String) -> ModelFileError {
        ModelFileError(.malformed, url: url, message)
    }

    /// Runs `body`, turning the archive's errors into a malformed-file error that says where.
    func archive<T>(_ place: @autoclosure () -> String, _ body: () throws(PropertyListError) -> T) throws(ModelFileError) -> T {
        do {
            return try body()
        } catch {
            throw malformed("\(place()): \(error)")
        }
    }

    /// Reads the root `NSManagedObjectModel`.
    mutating func read() throws(ModelFileError) -> ModelContentsReader.Contents {
        let graph = graph
        guard let root = try archive("the archive's root", { () throws(PropertyListError) in try graph.instance(at: graph.root) }),
            root.className == "NSManagedObjectModel"
        else {
            throw malformed("the archive's root object is not an NSManagedObjectModel: this is not a compiled Core Data model")
        }
        var contents = ModelContentsReader.Contents()
        let entityEntries = try archive("NSEntities", { () throws(PropertyListError) in try graph.entries(root["NSEntities"]) }) ?? []
        var names: Set<String> = []
        for (key, reference) in entityEntries {
            guard let entity = try readEntity(at: reference, key: key) else { continue }
            guard names.insert(entity.name).inserted else { throw malformed("a second entity is named \(entity.name)") }
            contents.entities.append(entity)
        }
        contents.configurations = try readConfigurations(root["NSConfigurations"])
        contents.fetchRequestTemplates = try readFetchRequestTemplates(root["NSFetchRequestTemplates"])
        let identifiers = try archive("NSVersionIdentifiers", { () throws(PropertyListError) in try graph.value(root["NSVersionIdentifiers"]) })
        if let identifiers {
            var strings: Set<String> = []
            for element in Self.elements(of: identifiers) {
                if let string = element as? String { strings.insert(string) } else { warn("a version identifier that is not a string was ignored") }
            }
            // Kept as written, the empty identifier too: Core Data records it in the store's
            // metadata (`[""]` for an Xcode model without one, `[]` for a model built in code).
            contents.versionIdentifiers = strings
        }
        for unknown in root.fields.keys.sorted() where !Self.modelKeys.contains(unknown) {
            warn("unknown NSManagedObjectModel key '\(unknown)' was ignored")
        }
        return contents
    }

    private static let modelKeys: Set<String> = ["$class", "NSEntities", "NSConfigurations", "NSFetchRequestTemplates", "NSVersionIdentifiers"]

    /// `NSConfigurations`: configuration name → a set (or array) of entities.
    private mutating func readConfigurations(_ field: PropertyListValue?) throws(ModelFileError) -> [String: [String]] {
        let graph = graph
        guard let entries = try archive("NSConfigurations", { () throws(PropertyListError) in try graph.entries(field) }) else { return [:] }
        var result: [String: [String]] = [:]
        for (name, reference) in entries {
            let members = try archive("configuration \(name)", { () throws(PropertyListError) in try graph.members(.uid(reference)) }) ?? []
            var entityNames: [String] = []
            for member in members {
                let entityName = try archive("configuration \(name)", { () throws(PropertyListError) -> String? in
                    if let instance = try graph.instance(at: member) { return try graph.string(instance["NSEntityName"]) }
                    return try graph.string(.uid(member))
                })
                guard let entityName else {
                    warn("configuration \(name): a member that is neither an entity nor an entity name was ignored")
                    continue
                }
                entityNames.append(entityName)
            }
            result[name] = entityNames.sorted()
        }
        return result
    }

    /// `NSFetchRequestTemplates`: template name → `NSFetchRequest`.
    private mutating func readFetchRequestTemplates(_ field: PropertyListValue?) throws(ModelFileError) -> [String: StoreFetchRequest] {
        let graph = graph
        guard let entries = try archive("NSFetchRequestTemplates", { () throws(PropertyListError) in try graph.entries(field) }) else { return [:] }
        var result: [String: StoreFetchRequest] = [:]
        for (name, reference) in entries {
            if let request = try readFetchRequest(at: reference, named: "fetch request \(name)") {
                result[name] = request
            }
        }
        return result
    }

    /// The elements of a decoded collection value (array or set); a single value as itself.
    static func elements(of value: Any) -> [Any] {
        switch value {
        case let array as [Any]: array
        case let set as Set<AnyHashable>: set.map(\.base)
        default: [value]
        }
    }
}
