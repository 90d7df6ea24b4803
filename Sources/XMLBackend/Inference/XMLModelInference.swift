import Foundation
import StoreCore

/// Reads a Core Data XML store once, without a model, and rebuilds the model it was written
/// with from what every `<object>` declares: its entity (`type`), its attributes' names and
/// types, its relationships' names, cardinality (`type="0/1"`) and destination. Entity names
/// keep their case when the metadata's version hashes list them (Core Data upper-cases `type`).
///
/// Hand-edited files are read as far as they make sense: an attribute written with several
/// types gets one that reads them all (a number that is not an integer makes it a double), and
/// what cannot be loaded is named in the notes.
///
/// For example:
///
/// ```swift
/// let inferred = try XMLModelInference(data: Data(contentsOf: url)).infer()
/// ```
struct XMLModelInference {
    let data: Data

    /// What the objects of one entity showed for one attribute.
    struct AttributeEvidence {
        var order: Int
        var kinds: [XMLAttributeKind: Int] = [:]
        /// The kinds every value seen so far parses as.
        var readableAs: Set<XMLAttributeKind> = Set(XMLAttributeKind.allCases)
    }

    struct RelationshipEvidence {
        var order: Int
        var destinationType: String
        var isToMany = false
        var withoutIDRefs = 0
        /// Every (object id, referenced id) the relationship holds: two relationships holding
        /// the same links reversed are each other's inverse.
        var links: Set<Link> = []
    }

    struct Link: Hashable {
        let from: String
        let to: String
    }

    struct EntityEvidence {
        var type: String
        var objects = 0
        var attributes: [String: AttributeEvidence] = [:]
        var relationships: [String: RelationshipEvidence] = [:]
    }

    func infer() throws -> InferredModel {
        var entities: [String: EntityEvidence] = [:]
        var entityOrder: [String] = []
        var metadata: [String: PropertyListValue] = [:]
        var storeUUID: String?
        var unkeyed = 0
        try data.withUnsafeBytes { bytes in
            try XMLPrologCheck.check(bytes)
            try withSilencedLibXML2Errors {
                let cursor = try XMLNodeCursor(document: bytes)
                guard case .start(let root, let isRootEmpty)? = try cursor.next(), Self.name(root) == "database" else {
                    throw StoreError(.wrongFormat, "not a Core Data XML store: the root element is not <database>")
                }
                guard !isRootEmpty else { return }
                while case .start(let name, let isEmpty)? = try cursor.next() {
                    switch Self.name(name) {
                    case "databaseInfo":
                        try readDatabaseInfo(cursor, isEmpty: isEmpty, metadata: &metadata, uuid: &storeUUID)
                    case "object":
                        var type = "", id = ""
                        try cursor.forEachAttribute { name, value in
                            if Self.name(name) == "type" { type = Self.text(value) } else if Self.name(name) == "id" { id = Self.text(value) }
                        }
                        guard !type.isEmpty else { throw cursor.error(.corrupt, "an <object> without a type") }
                        if !(id.hasPrefix("z") && Int64(id.dropFirst()) != nil) { unkeyed += 1 }
                        if entities[type] == nil { entities[type] = EntityEvidence(type: type); entityOrder.append(type) }
                        entities[type]?.objects += 1
                        if !isEmpty { try readObject(cursor, id: id, into: &entities[type, default: EntityEvidence(type: type)]) }
                    default:
                        throw cursor.error(.corrupt, "an element other than <databaseInfo> or <object> in <database>")
                    }
                }
            }
        }
        return try build(entities: entities, order: entityOrder, metadata: metadata, storeUUID: storeUUID, unkeyed: unkeyed)
    }

    private func readDatabaseInfo(
        _ cursor: XMLNodeCursor, isEmpty: Bool, metadata: inout [String: PropertyListValue], uuid: inout String?
    ) throws(StoreError) {
        guard !isEmpty else { return }
        while case .start(let name, let isEmpty)? = try cursor.next() {
            switch Self.name(name) {
            case "UUID": uuid = String(decoding: XMLValueDecoding.trimmed(try cursor.text(isEmpty: isEmpty)), as: UTF8.self)
            case "metadata":
                guard !isEmpty else { continue }
                while case .start(_, let isEmpty)? = try cursor.next() {
                    if case .dictionary(let entries) = try XMLPropertyListReader(cursor: cursor).readPlist(isEmpty: isEmpty) { metadata = entries }
                }
            case "version", "nextObjectID": _ = try cursor.text(isEmpty: isEmpty)
            default: try cursor.skip(isEmpty: isEmpty)
            }
        }
    }

    private func readObject(_ cursor: XMLNodeCursor, id: String, into entity: inout EntityEvidence) throws(StoreError) {
        let decoding = XMLValueDecoding()
        while case .start(let element, let isEmpty)? = try cursor.next() {
            var name = "", type = "", destination = "", idrefs: String?
            try cursor.forEachAttribute { key, value in
                switch Self.name(key) {
                case "name": name = Self.text(value)
                case "type": type = Self.text(value)
                case "destination": destination = Self.text(value)
                case "idrefs": idrefs = Self.text(value)
                default: break
                }
            }
            switch Self.name(element) {
            case "attribute":
                let text = try cursor.text(isEmpty: isEmpty)
                var evidence = entity.attributes[name] ?? AttributeEvidence(order: entity.attributes.count)
                let kind = type.utf8CString.withUnsafeBufferPointer { buffer in
                    buffer.withMemoryRebound(to: UInt8.self) { XMLAttributeKind(name: UnsafeBufferPointer(rebasing: $0.dropLast())) }
                } ?? .string
                evidence.kinds[kind, default: 0] += 1
                evidence.readableAs = evidence.readableAs.filter { decoding.value(of: $0, from: text) != nil }
                entity.attributes[name] = evidence
            case "relationship":
                try cursor.skip(isEmpty: isEmpty)
                var evidence = entity.relationships[name] ?? RelationshipEvidence(order: entity.relationships.count, destinationType: destination)
                let counts = type.split(separator: "/")
                let maximum = counts.count == 2 ? Int(counts[1]) : nil
                let references = idrefs?.split(whereSeparator: \.isWhitespace).count ?? 0
                if maximum != 1 || references > 1 { evidence.isToMany = true }
                if idrefs == nil { evidence.withoutIDRefs += 1 }
                for reference in idrefs?.split(whereSeparator: \.isWhitespace) ?? [] {
                    evidence.links.insert(Link(from: id, to: String(reference)))
                }
                entity.relationships[name] = evidence
            default:
                throw cursor.error(.corrupt, "an element other than <attribute> or <relationship> in an <object>")
            }
        }
    }

    private static func name(_ pointer: UnsafePointer<UInt8>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }

    private static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
