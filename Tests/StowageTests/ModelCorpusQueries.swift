import Foundation
import StoreCore

/// Queries a user runs on a real model after the round trip: for every stored attribute of a
/// comparable type, `%K == value` finds the object that holds the value, and a fetch sorted by the
/// attribute returns every object of the entity.
enum ModelCorpusQueries {
    static func check(_ object: ManagedObject, in context: ManagedObjectContext, graph: ModelCorpusGraph) throws {
        let entity = object.entity
        let total = try context.count(for: FetchRequest<ManagedObject>(entityName: entity.name))
        for attribute in graph.storedAttributes(of: entity) {
            switch attribute.attributeType {
            case .binaryData, .transformable, .objectID, .undefined, .composite: continue
            default: break
            }
            let value = try object.storeValue(forKey: attribute.name)
            guard !value.isNull, let argument = value.anyValue else { continue }
            let request = FetchRequest<ManagedObject>(entityName: entity.name, predicate: try .format("%K == %@", attribute.name, argument))
            let found = try context.fetch(request)
            guard found.contains(where: { $0.objectID == object.objectID }) else {
                throw CorpusQueryMismatch("\(entity.name): \(attribute.name) == \(value) (\(attribute.attributeType.name)) does not find the object that holds it (found \(found.count))")
            }
            let sorted = try context.fetch(FetchRequest<ManagedObject>(entityName: entity.name, predicate: nil, sortDescriptors: [.ascending(attribute.name)]))
            guard sorted.count == total else {
                throw CorpusQueryMismatch("\(entity.name): sorted by \(attribute.name), fetched \(sorted.count) of \(total)")
            }
        }
    }
}

struct CorpusQueryMismatch: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
