import Foundation
import StoreCore

/// Fills a model with a small graph a Core Data user could have saved: one or two objects of
/// every concrete entity, every stored attribute given a value its validation rules accept
/// (optional flags, minimum and maximum, lengths, patterns), every stored relationship set
/// within its counts. Used by ``ModelCorpusTests`` on real-world model files.
struct ModelCorpusGraph {
    let model: ManagedObjectModel
    let objectsPerEntity: Int

    init(model: ManagedObjectModel, objectsPerEntity: Int = 2) {
        self.model = model
        self.objectsPerEntity = objectsPerEntity
    }

    /// The entities objects are made of: every entity that is not abstract.
    var concreteEntities: [EntityDescription] {
        model.entities.filter { !$0.isAbstract }.sorted { $0.name < $1.name }
    }

    /// Inserts the graph into `context` (not saved) and returns the objects by entity name.
    func insert(into context: ManagedObjectContext) throws -> [String: [ManagedObject]] {
        var objects: [String: [ManagedObject]] = [:]
        var serial = 0   // across entities: a uniqueness constraint of a parent entity spans its sub-entities
        for entity in concreteEntities {
            for _ in 0..<objectsPerEntity {
                let object = try context.insertNewObject(forEntityName: entity.name)
                try fillAttributes(of: object, seed: serial)
                serial += 1
                objects[entity.name, default: []].append(object)
            }
        }
        try context.obtainPermanentIDs(for: objects.values.flatMap { $0 })
        let all = objects.values.flatMap { $0 }
        for object in all {
            for attribute in storedAttributes(of: object.entity) where attribute.attributeType == .objectID {
                try object.setStoreValue(.objectID(all[0].objectID), forKey: attribute.name)
            }
        }
        var claimed: [String: Set<ObjectIdentifier>] = [:]
        for entity in concreteEntities {
            for (seed, object) in (objects[entity.name] ?? []).enumerated() {
                try fillRelationships(of: object, seed: seed, objects: objects, claimed: &claimed)
            }
        }
        return objects
    }

    func storedAttributes(of entity: EntityDescription) -> [AttributeDescription] {
        entity.attributes.filter { !$0.isTransient && $0.attributeType != .composite && $0.attributeType != .undefined }
    }

    func storedRelationships(of entity: EntityDescription) -> [RelationshipDescription] {
        entity.relationships.filter { !$0.isTransient }
    }

    private func fillAttributes(of object: ManagedObject, seed: Int) throws {
        // Every attribute a user can set: stored ones, transient ones (Undefined included) and
        // derived ones (the store computes those again on save).
        let settable = object.entity.attributes.filter { $0.attributeType != .composite }
        for attribute in settable {
            if attribute.attributeType == .undefined {
                try object.setValue("anything \(seed)", forKey: attribute.name)
                continue
            }
            // As a user would: Swift values through key-value access, transformables too.
            switch attribute.attributeType {
            case .objectID:
                continue
            case .transformable:
                try object.setValue(["value \(seed)", "tag"], forKey: attribute.name)
            default:
                guard let value = Self.plausibleValue(for: attribute, seed: seed) else { continue }
                if case .integer(let number) = value {
                    try object.setValue(Int(number), forKey: attribute.name)
                } else {
                    try object.setValue(value.anyValue, forKey: attribute.name)
                }
            }
        }
    }

    /// Concrete objects that may stand at the end of `relationship`.
    private func destinations(of relationship: RelationshipDescription, objects: [String: [ManagedObject]]) -> [ManagedObject] {
        guard let destination = model.entitiesByName[relationship.destinationEntityName] else { return [] }
        var result: [ManagedObject] = []
        var queue = [destination]
        while let entity = queue.first {
            queue.removeFirst()
            result += objects[entity.name] ?? []
            queue += entity.subentities
        }
        return result
    }

    private func fillRelationships(
        of object: ManagedObject, seed: Int, objects: [String: [ManagedObject]], claimed: inout [String: Set<ObjectIdentifier>]
    ) throws {
        for relationship in storedRelationships(of: object.entity) {
            let candidates = destinations(of: relationship, objects: objects)
            guard !candidates.isEmpty else { continue }
            let inverse = relationship.inverseRelationship
            // A to-many without an inverse is one-to-many in Core Data's SQLite layout (the owner's
            // key in a column of the destination's table): each destination gets one owner.
            let claimKey = "\(relationship.entity?.name ?? "").\(relationship.name)"
            let claims = claimed[claimKey] ?? []
            // Prefer destinations whose inverse is still free, so that nothing is taken away from another object.
            func isFree(_ candidate: ManagedObject) throws -> Bool {
                guard let inverse else { return !relationship.isToMany || !claims.contains(ObjectIdentifier(candidate)) }
                guard !inverse.isToMany else { return true }
                return try candidate.value(forKey: inverse.name) == nil
            }
            if relationship.isToMany {
                let current = try object.value(forKey: relationship.name)
                let count = (current as? Set<ManagedObject>)?.count ?? (current as? [ManagedObject])?.count ?? 0
                var wanted = max(relationship.minCount, 1)
                if relationship.maxCount > 0 { wanted = min(wanted, relationship.maxCount) }
                guard count < wanted else { continue }
                let free = try candidates.filter { try $0 !== object && isFree($0) }
                let pool = free.isEmpty ? candidates : free
                for candidate in pool.prefix(wanted - count) {
                    try object.add(candidate, toRelationship: relationship.name)
                    if inverse == nil { claimed[claimKey, default: []].insert(ObjectIdentifier(candidate)) }
                }
            } else {
                guard try object.value(forKey: relationship.name) == nil else { continue }
                let free = try candidates.filter { try isFree($0) }
                let pool = free.isEmpty ? candidates : free
                try object.setValue(pool[seed % pool.count], forKey: relationship.name)
            }
        }
    }

    /// What a user could store in `attribute` for object number `seed`, or `nil` when nothing
    /// fits its rules (the attribute is then left to its default).
    static func plausibleValue(for attribute: AttributeDescription, seed: Int) -> StoreValue? {
        var minimum: StoreValue?, maximum: StoreValue?, minLength: Int?, maxLength: Int?, pattern: String?
        for rule in attribute.validationRules {
            switch rule {
            case .minimum(let value): minimum = value
            case .maximum(let value): maximum = value
            case .minimumLength(let length): minLength = length
            case .maximumLength(let length): maxLength = length
            case .pattern(let text): pattern = text
            }
        }
        func clamp(_ value: Double) -> Double {
            var value = value
            if let low = minimum?.numericValue { value = max(value, low) }
            if let high = maximum?.numericValue { value = min(value, high) }
            return value
        }
        func length(_ wanted: Int) -> Int {
            var result = wanted
            if let minLength { result = max(result, minLength) }
            if let maxLength { result = min(result, maxLength) }
            return max(result, 0)
        }
        // Even objects get values at the edges a real app meets (largest integers, fractional
        // seconds, long decimals, text with markup and emoji, large binary data), odd ones plain values.
        let edgy = seed % 2 == 0
        switch attribute.attributeType {
        case .integer16, .integer32, .integer64:
            guard edgy else { return .integer(Int64(clamp(Double(seed + 1)).rounded(.up))) }
            let top: Int64 = attribute.attributeType == .integer16 ? Int64(Int16.max) : attribute.attributeType == .integer32 ? Int64(Int32.max) : Int64.max - 1
            var value = top - Int64(seed)
            if case .integer(let high)? = maximum { value = min(value, high) }
            if let low = minimum?.numericValue { value = max(value, Int64(low.rounded(.up))) }
            return .integer(value)
        case .double:
            return .double(clamp(edgy ? Double.pi * Double(seed + 1) : Double(seed) + 1.5))
        case .float:
            return .float(Float(clamp(edgy ? Double(Float(1.1) * Float(seed + 1)) : Double(seed) + 1.5)))
        case .decimal:
            guard edgy, minimum == nil, maximum == nil, let long = Decimal(string: "12345678901234567.0123456789") else {
                return .decimal(Decimal(clamp(Double(seed) + 1.25)))
            }
            return .decimal(long + Decimal(seed))
        case .boolean:
            return .boolean(edgy)
        case .date:
            var seconds = 700_000_000.0 + Double(seed) * 3600 + (edgy ? 0.123456 : 0)
            if case .date(let low)? = minimum { seconds = max(seconds, low.timeIntervalSinceReferenceDate) }
            if case .date(let high)? = maximum { seconds = min(seconds, high.timeIntervalSinceReferenceDate) }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .binaryData:
            let count = edgy && attribute.allowsExternalBinaryDataStorage ? 200_000 : 3 + seed
            return .data(Data((0..<length(count)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed) }))
        case .uuid:
            return .uuid(UUID())
        case .uri:
            return .uri(edgy ? URL(string: "https://example.com/a%20b?q=1&r=<2>#frag\(seed)") ?? URL(fileURLWithPath: "/") : URL(fileURLWithPath: "/corpus/\(seed)"))
        case .string:
            var candidates = [edgy ? "Ünïcødé <b>&amp;</b> \"q\" 'x'\n\ttab 😀 \(seed)" : "value \(seed)", "v\(seed)", "\(seed + 1)", "abc", "A", "a", "test\(seed)@example.com", "https://example.com/\(seed)"]
            if case .string(let text) = attribute.defaultValue { candidates.append(text) }
            for candidate in candidates {
                var text = candidate
                let wanted = length(text.count)
                if text.count > wanted { text = String(text.prefix(wanted)) }
                while text.count < wanted { text += "x" }
                if let pattern {
                    guard let expression = try? NSRegularExpression(pattern: "^(?:\(pattern))$") else { return nil }
                    guard expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil else { continue }
                }
                return .string(text)
            }
            return nil
        default:
            return nil
        }
    }
}

extension StoreValue {
    fileprivate var numericValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        case .float(let value): Double(value)
        case .decimal(let value): NSDecimalNumber(decimal: value).doubleValue
        default: nil
        }
    }
}
