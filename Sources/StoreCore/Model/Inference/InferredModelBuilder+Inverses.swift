import Foundation

/// Pairing relationships found on one side, and the inverses made up for the rest.
extension InferredModelBuilder {
    /// Explicit pairs first, then one-to-one matches (exactly one unpaired relationship each way
    /// between two entities), then made-up inverses for the rest.
    mutating func completeInverses() {
        func unpaired(from entity: String, to destination: String, except: (Int, Int)? = nil) -> [(Int, Int)] {
            guard let e = index(of: entity) else { return [] }
            return entities[e].relationships.indices.compactMap { r in
                let relationship = entities[e].relationships[r]
                guard relationship.inverse == nil, relationship.pairs, relationship.destination == destination else { return nil }
                if let except, except == (e, r) { return nil }
                return (e, r)
            }
        }
        for e in entities.indices {
            for r in entities[e].relationships.indices where entities[e].relationships[r].inverse == nil && entities[e].relationships[r].pairs {
                let relationship = entities[e].relationships[r]
                let source = entities[e].name
                let forward = unpaired(from: source, to: relationship.destination)
                let backward = unpaired(from: relationship.destination, to: source, except: (e, r))
                let isSelf = source == relationship.destination
                guard isSelf ? (forward.count == 2 && backward.count == 1) : (forward.count == 1 && backward.count == 1),
                    let (d, i) = backward.first
                else { continue }
                entities[e].relationships[r].inverse = entities[d].relationships[i].name
                entities[d].relationships[i].inverse = relationship.name
            }
        }
        for e in entities.indices {
            for r in entities[e].relationships.indices where entities[e].relationships[r].inverse == nil {
                let relationship = entities[e].relationships[r]
                guard let d = index(of: relationship.destination), let shape = relationship.inverseShape else { continue }
                let source = entities[e].name
                var base = source.prefix(1).lowercased() + source.dropFirst()
                if shape.isToMany { base = Self.plural(base) }
                let used = namesInHierarchy(of: relationship.destination)
                var name = base
                if used.contains(name) { name = base + "_" + relationship.name }
                var suffix = 2
                while namesInHierarchy(of: relationship.destination).contains(name) {
                    name = base + "_" + relationship.name + String(suffix)
                    suffix += 1
                }
                entities[e].relationships[r].inverse = name
                entities[d].relationships.append(Relationship(
                    name: name, destination: source, isToMany: shape.isToMany, isOrdered: shape.isOrdered,
                    inverse: relationship.name, userInfo: shape.userInfo.merging([Self.madeUpKey: "true"]) { a, _ in a },
                    inverseShape: nil, pairs: true))
                notes.append("\(relationship.destination).\(name) is a made-up name for the inverse of \(source).\(relationship.name)")
            }
        }
    }

    /// The `userInfo` key marking a relationship the store does not name (a made-up inverse).
    package static let madeUpKey = InferredModel.madeUpInverseKey

    /// `recipe` → `recipes`, `entity` → `entities`, `box` → `boxes`.
    static func plural(_ word: String) -> String {
        let lower = word.lowercased()
        if lower.hasSuffix("y"), let before = lower.dropLast().last, !"aeiou".contains(before) { return word.dropLast() + "ies" }
        if ["s", "x", "z", "ch", "sh"].contains(where: { lower.hasSuffix($0) }) { return word + "es" }
        return word + "s"
    }
}
