import Foundation
import StoreCore

/// Turns what the objects showed into a model: entity names, attribute types that read every
/// value, relationships paired by the links they hold, and notes on what does not fit.
extension XMLModelInference {
    func build(
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
    static func inversesByLinks(_ entities: [String: EntityEvidence], entityName: (String) -> String) -> [String: String] {
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
    static func kind(for evidence: AttributeEvidence) -> XMLAttributeKind {
        let written = evidence.kinds.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key.name < $1.key.name }.map(\.key)
        let numeric: Set<XMLAttributeKind> = [.int16, .int32, .int64, .decimal, .double, .float, .bool]
        if written.allSatisfy(numeric.contains) {
            let widest = written.max { rank($0) < rank($1) } ?? .int64
            for candidate in [widest, .int64, .double, .decimal] where evidence.readableAs.contains(candidate) { return candidate }
            return widest
        }
        return written.first.flatMap { evidence.readableAs.contains($0) ? $0 : nil } ?? written.first ?? .string
    }

    static func rank(_ kind: XMLAttributeKind) -> Int {
        [.bool, .int16, .int32, .int64, .float, .double, .decimal].firstIndex(of: kind) ?? 0
    }

    static func attributeType(_ kind: XMLAttributeKind) -> AttributeType {
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
}
