import Foundation
import StoreCore

/// Rebuilds a model from a Stowage binary store (docs/binary-format.md): the file lists its
/// entities, each attribute column's type and each relationship column's cells — a key for a
/// to-one, an array of keys for a to-many. Keys are unique across the file, so a relationship's
/// destination is the entity holding the keys it refers to. Sub-entities, optionality and
/// ordering are not recorded and are not recovered.
///
/// For example:
///
/// ```swift
/// let inferred = try BinaryModelInference(data: Data(contentsOf: url)).infer()
/// ```
struct BinaryModelInference {
    let data: Data

    func infer() throws -> InferredModel {
        let root: PropertyListValue
        do {
            root = try BinaryPropertyListReader(limits: .init(maxDepth: 32, maxValueCount: max(1_000_000, data.count * 4))).read(data)
        } catch {
            throw StoreError(.wrongFormat, "not a binary store Stowage can read: \(error)")
        }
        guard case .dictionary(let top) = root, top[BinaryStoreLayout.formatKey]?.stringValue == BinaryStoreLayout.formatMarker else {
            throw StoreError(.wrongFormat, "a binary property list, but not a Stowage binary store; its model cannot be inferred, pass the model it was written with")
        }
        var builder = InferredModelBuilder()
        if case .dictionary(let metadata)? = top["metadata"] { builder.metadata = PropertyListValue.inspectionText(of: metadata) }
        guard case .dictionary(let entities)? = top["entities"] else {
            throw StoreError(.corrupt, "the binary store has no entities dictionary")
        }
        var owners: [Int64: String] = [:]
        for (name, value) in entities.sorted(by: { $0.key < $1.key }) {
            guard builder.addEntity(name), case .dictionary(let table) = value, case .array(let keys)? = table["keys"] else { continue }
            for key in keys { if let key = key.integerValue { owners[key] = name } }
        }
        // Entities without objects have no table, but the metadata's version hashes name them
        // (and a whole-file store refuses a model without them).
        if case .dictionary(let metadata)? = top["metadata"], case .dictionary(let hashes)? = metadata["NSStoreModelVersionHashes"] {
            for name in hashes.keys.sorted() where builder.entity(named: name) == nil { builder.addEntity(name) }
        }
        for (name, value) in entities.sorted(by: { $0.key < $1.key }) {
            guard builder.entity(named: name) != nil, case .dictionary(let table) = value else { continue }
            if case .dictionary(let attributes)? = table["attributes"] {
                for (attribute, column) in attributes.sorted(by: { $0.key < $1.key }) {
                    guard case .dictionary(let column) = column, let type = column["type"]?.stringValue else { continue }
                    if let attributeType = Self.attributeType(type) {
                        builder.addAttribute(attribute, attributeType, to: name)
                    } else {
                        builder.notes.append("\(name).\(attribute) has values of several types (\(type)); it was left out")
                    }
                }
            }
            guard case .dictionary(let relationships)? = table["relationships"] else { continue }
            for (relationship, column) in relationships.sorted(by: { $0.key < $1.key }) {
                guard case .array(let cells) = column else { continue }
                var isToMany = false
                var destinations: Set<String> = []
                for cell in cells {
                    switch cell {
                    case .integer(let key): if let owner = owners[key] { destinations.insert(owner) }
                    case .array(let keys):
                        if !keys.isEmpty { isToMany = true }
                        for key in keys { if let key = key.integerValue, let owner = owners[key] { destinations.insert(owner) } }
                    default: break
                    }
                }
                // Every column must be in the model for the file to load, so one that holds no
                // object gets the entity whose name fits it best (it reads as empty either way).
                let byName = builder.entityNames.max { Self.nameScore($0, relationship) < Self.nameScore($1, relationship) }
                let destination = destinations.count == 1 ? destinations.first ?? name : destinations.sorted().first ?? byName ?? name
                if destinations.isEmpty {
                    builder.notes.append("\(name).\(relationship) holds no objects; its destination \(destination) is a guess")
                } else if destinations.count > 1 {
                    builder.notes.append("\(name).\(relationship) holds objects of several entities (\(destinations.sorted().joined(separator: ", "))); read as \(destination)")
                }
                builder.addRelationship(relationship, from: name, to: destination, isToMany: isToMany)
            }
        }
        return try builder.build(storeType: .binary)
    }

    /// 2 when an entity's name is the relationship's (singular), 1 when it contains it, else 0.
    private static func nameScore(_ entity: String, _ relationship: String) -> Int {
        let name = entity.lowercased(), key = relationship.lowercased()
        if name == key || name + "s" == key || name + "es" == key { return 2 }
        return key.contains(name) || name.contains(key) ? 1 : 0
    }

    private static func attributeType(_ type: String) -> AttributeType? {
        switch type {
        case "integer": .integer64
        case "double": .double
        case "float": .float
        case "decimal": .decimal
        case "string": .string
        case "boolean": .boolean
        case "date": .date
        case "data": .binaryData
        case "uuid": .uuid
        case "uri": .uri
        case "objectID": .objectID
        default: nil
        }
    }
}
