import Foundation
import StoreCore

extension CompiledModelReader {
    private static let entityKeys: Set<String> = [
        "$class", "NSEntityName", "NSClassNameForEntity", "NSIsAbstract", "NSManagedObjectModel", "NSSuperentity",
        "NSSubentities", "NSProperties", "NSUserInfo", "NSVersionHashModifier", "NSRenamingIdentifier",
        "NSFetchIndexDescriptions", "NSCompoundIndexes", "NSUniqueTuples", "NSUniquenessConstraints",
    ]

    /// One `NSEntityDescription`: its own properties (inherited ones are its parent's), fetched
    /// properties, indexes, uniqueness constraints and user info.
    mutating func readEntity(at reference: UInt64, key: String) throws(ModelFileError) -> EntityDescription? {
        let graph = graph
        guard let entity = try archive("entity \(key)", { () throws(PropertyListError) in try graph.instance(at: reference) }),
            entity.className == "NSEntityDescription"
        else {
            throw malformed("NSEntities holds something other than an NSEntityDescription under '\(key)'")
        }
        guard let name = try archive("entity \(key)", { () throws(PropertyListError) in try graph.string(entity["NSEntityName"]) }), !name.isEmpty else {
            throw malformed("the entity under '\(key)' has no NSEntityName")
        }
        for unknown in entity.fields.keys.sorted() where !Self.entityKeys.contains(unknown) {
            warn("entity \(name): unknown key '\(unknown)' was ignored")
        }
        let parent = try archive("entity \(name): NSSuperentity", { () throws(PropertyListError) -> String? in
            guard let superentity = try graph.instance(entity["NSSuperentity"]) else { return nil }
            return try graph.string(superentity["NSEntityName"])
        })

        var attributes: [PropertyDescription] = []
        var relationships: [PropertyDescription] = []
        var fetchedProperties: [FetchedPropertyDescription] = []
        var indexedAttributes: [String] = []
        let propertyEntries = try archive("entity \(name): NSProperties", { () throws(PropertyListError) in try graph.entries(entity["NSProperties"]) }) ?? []
        for (propertyName, propertyReference) in propertyEntries.sorted(by: { $0.key < $1.key }) {
            let place = "\(name).\(propertyName)"
            guard let property = try archive(place, { () throws(PropertyListError) in try graph.instance(at: propertyReference) }) else {
                throw malformed("\(place) is not a property description")
            }
            // A property declared by an ancestor belongs to the ancestor's description.
            let owner = try archive(place, { () throws(PropertyListError) in try graph.reference(property.fields["NSEntity"]) })
            if let owner, owner != reference {
                if try ancestors(of: entity).contains(owner) { continue }
                warn("\(place) names another entity (not an ancestor) as its own; it is read as \(name)'s")
            }
            switch property.className {
            case "NSAttributeDescription", "NSDerivedAttributeDescription", "NSCompositeAttributeDescription":
                guard let attribute = try readAttribute(property, entity: name) else { continue }
                if property.fields["NSIsIndexed"]?.booleanValue == true, !attribute.isTransient { indexedAttributes.append(attribute.name) }
                attributes.append(attribute)
            case "NSRelationshipDescription":
                relationships.append(try readRelationship(property, entity: name))
            case "NSFetchedPropertyDescription":
                if let fetched = try readFetchedProperty(property, entity: name) { fetchedProperties.append(fetched) }
            default:
                warn("\(place) is a \(property.className), which Stowage does not read; it was left out")
            }
        }

        var indexes = Self.withoutDerivedIndexes(try readFetchIndexes(entity["NSFetchIndexDescriptions"], entity: name), indexed: indexedAttributes)
        if entity["NSFetchIndexDescriptions"] == nil {
            // Models compiled before fetch index descriptions (iOS 11): compound indexes and
            // indexed attributes, named as the XML reader names them.
            indexes += try readCompoundIndexes(entity["NSCompoundIndexes"], entity: name)
            indexes += indexedAttributes.map { FetchIndexDescription(name: $0 + "Index", elements: [.init($0)]) }
        }
        let constraints = try readUniquenessConstraints(entity["NSUniqueTuples"] ?? entity["NSUniquenessConstraints"], entity: name)
        let userInfo = try readUserInfo(entity["NSUserInfo"], of: "entity \(name)")
        let renaming = try archive("entity \(name)", { () throws(PropertyListError) in try graph.string(entity["NSRenamingIdentifier"]) })
        let modifier = try archive("entity \(name)", { () throws(PropertyListError) in try graph.string(entity["NSVersionHashModifier"]) })
        var className = try archive("entity \(name)", { () throws(PropertyListError) in try graph.string(entity["NSClassNameForEntity"]) })
        if className?.isEmpty == true || className == "NSManagedObject" { className = nil }
        let properties = attributes + relationships
        return EntityDescription(
            name, parent: parent, isAbstract: entity["NSIsAbstract"]?.booleanValue ?? false,
            uniquenessConstraints: constraints, indexes: indexes, userInfo: userInfo,
            // Core Data records the name as the renaming identifier when none was set.
            renamingIdentifier: renaming == name ? nil : renaming,
            versionHashModifier: modifier?.isEmpty == true ? nil : modifier,
            representedClassName: className, fetchedProperties: fetchedProperties
        ) { EntityProperties(properties) }
    }

    /// The indexes without those Core Data derives from an attribute's `NSIsIndexed` flag: it
    /// marks an attribute that a single-property index covers as indexed, and lists an index
    /// named after the attribute beside the declared one (`name` beside `byName`), which is not
    /// part of the model as written.
    static func withoutDerivedIndexes(_ indexes: [FetchIndexDescription], indexed: [String]) -> [FetchIndexDescription] {
        func isSingle(_ index: FetchIndexDescription, on property: String) -> Bool {
            index.kind == .binary && index.partialIndexPredicate == nil && index.elements == [.init(property)]
        }
        return indexes.filter { index in
            guard indexed.contains(index.name), isSingle(index, on: index.name) else { return true }
            return !indexes.contains { $0.name != index.name && isSingle($0, on: index.name) }
        }
    }

    /// The references of an entity's ancestors, nearest first (at most 256; a cycle stops the walk
    /// and is reported by the model's own checks).
    private func ancestors(of entity: KeyedArchiveGraph.Instance) throws(ModelFileError) -> [UInt64] {
        let graph = graph
        var result: [UInt64] = []
        var current = entity
        while result.count < 256,
            let parent = try archive("the parents of entity \(entity.reference)", { () throws(PropertyListError) in try graph.instance(current["NSSuperentity"]) }),
            !result.contains(parent.reference), parent.reference != entity.reference {
            result.append(parent.reference)
            current = parent
        }
        return result
    }

    /// `NSFetchIndexDescriptions`: `NSFetchIndexDescription`s (`NSIndexName`, `NSIndexElements`
    /// of `NSFetchIndexElementDescription` — `NSPropertyName`, `NSFetchIndexElementType` 0 binary
    /// / 1 R-tree, `NSAscending` — and an archived `NSPartialIndexPredicate`).
    private mutating func readFetchIndexes(_ field: PropertyListValue?, entity: String) throws(ModelFileError) -> [FetchIndexDescription] {
        let graph = graph
        let place = "entity \(entity): NSFetchIndexDescriptions"
        guard let members = try archive(place, { () throws(PropertyListError) in try graph.members(field) }) else { return [] }
        var result: [FetchIndexDescription] = []
        for member in members {
            guard let index = try archive(place, { () throws(PropertyListError) in try graph.instance(at: member) }), index.className == "NSFetchIndexDescription" else {
                throw malformed("\(place) holds something other than an NSFetchIndexDescription")
            }
            guard let name = try archive(place, { () throws(PropertyListError) in try graph.string(index["NSIndexName"]) }) else {
                throw malformed("\(place): an index has no NSIndexName")
            }
            var elements: [FetchIndexDescription.Element] = []
            var kinds: Set<Int64> = []
            for elementReference in try archive(place, { () throws(PropertyListError) in try graph.members(index["NSIndexElements"]) }) ?? [] {
                let element = try archive(place, { () throws(PropertyListError) in try graph.instance(at: elementReference) })
                guard let element, element.className == "NSFetchIndexElementDescription" else {
                    throw malformed("\(place): index \(name) holds something other than an NSFetchIndexElementDescription")
                }
                let property = try archive(place, { () throws(PropertyListError) -> String? in
                    if let name = try graph.string(element["NSPropertyName"]) { return name }
                    return try graph.instance(element["NSProperty"]).flatMap { instance throws(PropertyListError) in try graph.string(instance["NSPropertyName"]) }
                })
                guard let property else {
                    warn("entity \(entity): index \(name): an expression element is not supported and was left out")
                    continue
                }
                let kind = element["NSFetchIndexElementType"]?.integerValue ?? 0
                if kind != 0 && kind != 1 { warn("entity \(entity): index \(name): unknown element type \(kind), taken as binary") }
                kinds.insert(kind == 1 ? 1 : 0)
                elements.append(.init(property, ascending: element["NSAscending"]?.booleanValue ?? true))
            }
            guard !elements.isEmpty else {
                warn("entity \(entity): index \(name) has no property elements and was left out")
                continue
            }
            if kinds.count > 1 { warn("entity \(entity): index \(name) mixes binary and R-tree elements; built as an R-tree") }
            var partial: String?
            if let predicate = index["NSPartialIndexPredicate"] {
                do {
                    partial = try ArchivedPredicate(graph: graph).format(predicate)
                } catch {
                    warn("entity \(entity): index \(name): its partial index predicate cannot be read (\(error)); the index was left out")
                    continue
                }
            }
            result.append(FetchIndexDescription(name: name, elements: elements, kind: kinds.contains(1) ? .rTree : .binary, partialIndexPredicate: partial))
        }
        return result
    }

    /// `NSCompoundIndexes`: arrays of property names (or property descriptions).
    private mutating func readCompoundIndexes(_ field: PropertyListValue?, entity: String) throws(ModelFileError) -> [FetchIndexDescription] {
        try readNameLists(field, place: "entity \(entity): NSCompoundIndexes").map { names in
            FetchIndexDescription(name: "compoundIndex" + names.joined(separator: "_"), elements: names.map { .init($0) })
        }
    }

    /// `NSUniqueTuples`: arrays of property names (or property descriptions).
    private mutating func readUniquenessConstraints(_ field: PropertyListValue?, entity: String) throws(ModelFileError) -> [[String]] {
        try readNameLists(field, place: "entity \(entity): NSUniqueTuples")
    }

    /// An array of arrays whose members are property names or property descriptions.
    private func readNameLists(_ field: PropertyListValue?, place: String) throws(ModelFileError) -> [[String]] {
        let graph = graph
        return try archive(place, { () throws(PropertyListError) -> [[String]] in
            var result: [[String]] = []
            for list in try graph.members(field) ?? [] {
                var names: [String] = []
                for member in try graph.members(.uid(list)) ?? [] {
                    if let instance = try graph.instance(at: member), let name = try graph.string(instance["NSPropertyName"]) {
                        names.append(name)
                    } else if let name = try graph.string(.uid(member)) {
                        names.append(name)
                    }
                }
                if !names.isEmpty { result.append(names) }
            }
            return result
        })
    }

    /// `NSUserInfo`: a dictionary whose values are strings (numbers are written as text).
    mutating func readUserInfo(_ field: PropertyListValue?, of place: String) throws(ModelFileError) -> [String: String] {
        let graph = graph
        guard let value = try archive("\(place): NSUserInfo", { () throws(PropertyListError) in try graph.value(field) }) else { return [:] }
        let entries: [(key: String, value: Any)]
        if let dictionary = value as? [String: Any] {
            entries = dictionary.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        } else if value is [AnyHashable: Any] {
            warn("\(place): user info with keys that are not strings was ignored")
            return [:]
        } else {
            throw malformed("\(place): NSUserInfo is not a dictionary")
        }
        var info: [String: String] = [:]
        for (key, entry) in entries {
            switch entry {
            case let string as String: info[key] = string
            case let bool as Bool: info[key] = bool ? "YES" : "NO"
            case let integer as Int: info[key] = String(integer)
            case let real as Double: info[key] = String(real)
            default: warn("\(place): user info '\(key)' is a \(type(of: entry)), not a string; ignored")
            }
        }
        return info
    }
}
