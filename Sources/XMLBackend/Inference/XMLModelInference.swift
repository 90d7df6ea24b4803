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
    private struct AttributeEvidence {
        var order: Int
        var kinds: [XMLAttributeKind: Int] = [:]
        /// The kinds every value seen so far parses as.
        var readableAs: Set<XMLAttributeKind> = Set(XMLAttributeKind.allCases)
    }

    private struct RelationshipEvidence {
        var order: Int
        var destinationType: String
        var isToMany = false
        var withoutIDRefs = 0
        /// Every (object id, referenced id) the relationship holds: two relationships holding
        /// the same links reversed are each other's inverse.
        var links: Set<Link> = []
    }

    private struct Link: Hashable {
        let from: String
        let to: String
    }

    private struct EntityEvidence {
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

    private func build(
        entities: [String: EntityEvidence], order: [String], metadata: [String: PropertyListValue], storeUUID: String?, unkeyed: Int
    ) throws -> InferredModel {
        var builder = InferredModelBuilder()
        builder.metadata = PropertyListValue.inspectionText(of: metadata)
        if let storeUUID, builder.metadata["NSStoreUUID"] == nil { builder.metadata["NSStoreUUID"] = storeUUID }
        var known: [String] = []
        if case .dictionary(let hashes)? = metadata["NSStoreModelVersionHashes"] { known = hashes.keys.sorted() }
        func entityName(_ type: String) -> String {
            known.first { $0 == type } ?? known.first { $0.uppercased() == type.uppercased() } ?? type
        }
        var names: [String: String] = [:]
        for type in order {
            let name = entityName(type)
            if builder.addEntity(name) { names[type] = name }
        }
        for name in known where builder.entity(named: name) == nil { builder.addEntity(name) }
        for type in order {
            guard let name = names[type], let evidence = entities[type] else { continue }
            for (attribute, seen) in evidence.attributes.sorted(by: { $0.value.order < $1.value.order }) {
                let kind = Self.kind(for: seen)
                builder.addAttribute(attribute, Self.attributeType(kind), to: name)
                if seen.kinds.count > 1 {
                    let written = seen.kinds.keys.map(\.name).sorted().joined(separator: ", ")
                    builder.notes.append("\(name).\(attribute) is written as \(written); it is read as \(kind.name)")
                }
                if !seen.readableAs.contains(kind) {
                    builder.notes.append("\(name).\(attribute) holds values that are not \(kind.name); the store will not load until they are fixed")
                }
            }
        }
        let inverses = Self.inversesByLinks(entities, entityName: entityName)
        for type in order {
            guard let name = names[type], let evidence = entities[type] else { continue }
            for (relationship, seen) in evidence.relationships.sorted(by: { $0.value.order < $1.value.order }) {
                let destination = entityName(seen.destinationType)
                if builder.entity(named: destination) == nil, builder.addEntity(destination) {
                    builder.notes.append("entity \(destination) has no objects and is known only as the destination of \(name).\(relationship)")
                }
                builder.addRelationship(relationship, from: name, to: destination, isToMany: seen.isToMany, inverse: inverses[name + "." + relationship])
                if seen.withoutIDRefs > 0 {
                    builder.notes.append("\(name).\(relationship) has no idrefs in \(seen.withoutIDRefs) object(s); read as empty")
                }
            }
        }
        if unkeyed > 0 {
            builder.notes.append("\(unkeyed) object(s) have ids that are not z<n> (hand-edited); they get keys above every other")
        }
        return try builder.build(storeType: .xml)
    }

    /// Pairs of relationships holding the same links reversed (both sides written, as Core Data
    /// and Stowage write them), by `Entity.relationship`; only pairs that match one way only.
    private static func inversesByLinks(_ entities: [String: EntityEvidence], entityName: (String) -> String) -> [String: String] {
        var sides: [(key: String, entity: String, name: String, destination: String, links: Set<Link>)] = []
        for (type, evidence) in entities {
            for (name, seen) in evidence.relationships where !seen.links.isEmpty {
                sides.append((entityName(type) + "." + name, entityName(type), name, entityName(seen.destinationType), seen.links))
            }
        }
        var result: [String: String] = [:]
        for side in sides {
            let reversed = Set(side.links.map { Link(from: $0.to, to: $0.from) })
            let matches = sides.filter { $0.key != side.key && $0.entity == side.destination && $0.destination == side.entity && $0.links == reversed }
            if matches.count == 1, let match = matches.first { result[side.key] = match.name }
        }
        return result.filter { key, inverse in
            guard let entity = key.split(separator: ".").first else { return false }
            return sides.contains { side in side.name == inverse && result[side.key] == String(key.split(separator: ".").last ?? "") && side.destination == String(entity) }
        }
    }

    /// The attribute kind that reads every value: the kind most often written when it does,
    /// otherwise the first of Integer 64, Double, Decimal, String (same family) that does.
    private static func kind(for evidence: AttributeEvidence) -> XMLAttributeKind {
        let written = evidence.kinds.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key.name < $1.key.name }.map(\.key)
        let numeric: Set<XMLAttributeKind> = [.int16, .int32, .int64, .decimal, .double, .float, .bool]
        if written.allSatisfy(numeric.contains) {
            let widest = written.max { rank($0) < rank($1) } ?? .int64
            for candidate in [widest, .int64, .double, .decimal] where evidence.readableAs.contains(candidate) { return candidate }
            return widest
        }
        return written.first.flatMap { evidence.readableAs.contains($0) ? $0 : nil } ?? written.first ?? .string
    }

    private static func rank(_ kind: XMLAttributeKind) -> Int {
        [.bool, .int16, .int32, .int64, .float, .double, .decimal].firstIndex(of: kind) ?? 0
    }

    private static func attributeType(_ kind: XMLAttributeKind) -> AttributeType {
        switch kind {
        case .int16: .integer16
        case .int32: .integer32
        case .int64: .integer64
        case .decimal: .decimal
        case .double: .double
        case .float: .float
        case .string: .string
        case .bool: .boolean
        case .date: .date
        case .binary: .binaryData
        case .transformable: .binaryData
        case .uuid: .uuid
        case .uri: .uri
        case .objectID: .objectID
        }
    }

    private static func name(_ pointer: UnsafePointer<UInt8>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }

    private static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
