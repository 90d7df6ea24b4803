import Foundation
import StoreCore

/// Reads the `contents` XML of one `.xcdatamodel` (Xcode 4 and later) into entity descriptions,
/// configurations and fetch request templates, collecting a ``ModelFileWarning`` for everything
/// it reads past. docs/model-files.md lists what each element and attribute becomes.
///
/// For example:
///
/// ```swift
/// var reader = ModelContentsReader(url: contentsURL)
/// let contents = try reader.read(try ModelXMLElement.parse(data, url: contentsURL))
/// let model = try ManagedObjectModel(configurations: contents.configurations) { contents.entities }
/// ```
struct ModelContentsReader {
    /// What one model file describes, ready to build a ``/StoreCore/ManagedObjectModel`` from.
    struct Contents {
        var entities: [EntityDescription] = []
        var configurations: [String: [String]] = [:]
        var fetchRequestTemplates: [String: StoreFetchRequest] = [:]
        var versionIdentifiers: Set<String> = []
        /// The line of each entity (by name) and property (`Entity.property`), for the warnings
        /// of the model's own checks.
        var lines: [String: Int] = [:]
    }

    let url: URL
    private(set) var warnings: [ModelFileWarning] = []
    /// The model's `<composite>` definitions by name, which `Composite` attributes name.
    var compositeDefinitions: [String: ModelXMLElement] = [:]
    /// The composites being read, outermost first: a definition that contains itself is refused.
    var compositesBeingRead: [String] = []

    init(url: URL) { self.url = url }

    mutating func warn(_ element: ModelXMLElement, _ message: String) {
        warnings.append(ModelFileWarning(url: url, line: element.line, message))
    }

    func error(_ element: ModelXMLElement, _ message: String) -> ModelFileError {
        ModelFileError(.malformed, url: url, line: element.line, message)
    }

    /// Warns about every attribute of `element` not in `known`.
    mutating func checkAttributes(of element: ModelXMLElement, known: Set<String>) {
        for attribute in element.attributes where !known.contains(attribute.name) {
            warn(element, "unknown attribute '\(attribute.name)' on <\(element.name)> was ignored")
        }
    }

    /// The element's required attribute, or a malformed-file error naming it.
    func required(_ name: String, of element: ModelXMLElement) throws(ModelFileError) -> String {
        guard let value = element.attribute(name), !value.isEmpty else {
            throw error(element, "<\(element.name)> has no '\(name)' attribute")
        }
        return value
    }

    /// A `YES`/`NO` attribute (absent: `defaultValue`).
    mutating func flag(_ name: String, of element: ModelXMLElement, default defaultValue: Bool = false) -> Bool {
        guard let value = element.attribute(name) else { return defaultValue }
        switch value {
        case "YES", "yes", "true", "1": return true
        case "NO", "no", "false", "0": return false
        default:
            warn(element, "'\(name)' is '\(value)', not YES or NO; taken as \(defaultValue ? "YES" : "NO")")
            return defaultValue
        }
    }

    /// An integer attribute (absent or unreadable: `nil`, the latter with a warning).
    mutating func integer(_ name: String, of element: ModelXMLElement) -> Int? {
        guard let value = element.attribute(name) else { return nil }
        guard let number = Int(value) else {
            warn(element, "'\(name)' is '\(value)', not an integer; ignored")
            return nil
        }
        return number
    }

    private static let modelAttributes: Set<String> = [
        "type", "documentVersion", "lastSavedToolsVersion", "systemVersion", "minimumToolsVersion", "sourceLanguage",
        "userDefinedModelVersionIdentifier", "usedWithSwiftData", "usedWithCloudKit", "iOSVersion", "macOSVersion",
    ]

    /// Reads the `<model>` root.
    mutating func read(_ root: ModelXMLElement) throws(ModelFileError) -> Contents {
        guard root.name == "model" else {
            throw error(root, "the root element is <\(root.name)>, not <model>: this is not an Xcode model file")
        }
        checkAttributes(of: root, known: Self.modelAttributes)
        var contents = Contents()
        // The empty identifier too, as momc compiles it: Core Data records `[""]` in the
        // metadata of a store made with such a model, `[]` for a model built in code.
        if let identifier = root.attribute("userDefinedModelVersionIdentifier") {
            contents.versionIdentifiers = [identifier]
        }
        for child in root.children where child.name == "composite" {
            checkAttributes(of: child, known: ["name"])
            compositeDefinitions[try required("name", of: child)] = child
        }
        var entityNames: Set<String> = []
        for child in root.children {
            switch child.name {
            case "entity":
                let entity = try readEntity(child)
                if !entityNames.insert(entity.name).inserted {
                    throw error(child, "a second entity is named \(entity.name)")
                }
                contents.entities.append(entity)
                contents.lines[entity.name] = child.line
                for property in child.children where property.name == "attribute" || property.name == "relationship" {
                    if let name = property.attribute("name") { contents.lines["\(entity.name).\(name)"] = property.line }
                }
            case "configuration":
                checkAttributes(of: child, known: ["name", "usedWithCloudKit"])
                let name = try required("name", of: child)
                var members: [String] = []
                for member in child.children {
                    guard member.name == "memberEntity" else {
                        warn(member, "unknown element <\(member.name)> in <configuration> was ignored")
                        continue
                    }
                    checkAttributes(of: member, known: ["name"])
                    members.append(try required("name", of: member))
                }
                contents.configurations[name] = members
            case "fetchRequest":
                if let (name, request) = try readFetchRequest(child) {
                    contents.fetchRequestTemplates[name] = request
                }
            case "elements":
                break  // the diagram's layout: positions and sizes of the entity boxes
            case "composite":
                break  // read above, where an attribute names it
            default:
                warn(child, "unknown element <\(child.name)> in <model> was ignored")
            }
        }
        return contents
    }

    /// `<userInfo><entry key="…" value="…"/></userInfo>`.
    mutating func readUserInfo(_ element: ModelXMLElement) -> [String: String] {
        checkAttributes(of: element, known: [])
        var info: [String: String] = [:]
        for entry in element.children {
            guard entry.name == "entry" else {
                warn(entry, "unknown element <\(entry.name)> in <userInfo> was ignored")
                continue
            }
            checkAttributes(of: entry, known: ["key", "value"])
            guard let key = entry.attribute("key") else {
                warn(entry, "a userInfo entry without a key was ignored")
                continue
            }
            info[key] = entry.attribute("value") ?? ""
        }
        return info
    }
}
