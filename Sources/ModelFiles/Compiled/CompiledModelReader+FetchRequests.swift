import Foundation
import StoreCore

extension CompiledModelReader {
    /// An archived `NSFetchRequest`: `NSEntity` (or `NSEntityName`), the archived `NSPredicate`,
    /// `NSFetchLimit`, `NSFetchOffset`, `NSBatchSize`, `NSResultType` and the
    /// `NSFetchRequestFlags` bits (1 distinct, 2 sub-entities, 4 property values, 8 faults,
    /// 0x10 pending changes). A predicate Stowage cannot read or parse leaves the request out,
    /// with a warning, as the XML reader does.
    mutating func readFetchRequest(at reference: UInt64, named place: String) throws(ModelFileError) -> StoreFetchRequest? {
        let graph = graph
        guard let instance = try archive(place, { () throws(PropertyListError) in try graph.instance(at: reference) }),
            instance.className == "NSFetchRequest"
        else {
            throw malformed("\(place) is not an NSFetchRequest")
        }
        let entityName = try archive(place, { () throws(PropertyListError) -> String? in
            if let entity = try graph.instance(instance["NSEntity"]) { return try graph.string(entity["NSEntityName"]) }
            return try graph.string(instance["NSEntityName"])
        })
        guard let entityName, !entityName.isEmpty else { throw malformed("\(place) has no entity") }
        var request = StoreFetchRequest(entityName: entityName)
        if let predicate = instance["NSPredicate"] {
            let format: String
            do {
                format = try ArchivedPredicate(graph: graph).format(predicate)
            } catch {
                warn("\(place): its predicate cannot be read (\(error)); the request was left out")
                return nil
            }
            do {
                request.predicate = try StorePredicate(format: format)
            } catch {
                warn("\(place): predicate '\(format)' cannot be parsed (\(error)); the request was left out")
                return nil
            }
        }
        for (key, label) in [("NSSortDescriptors", "sort descriptors"), ("NSValuesToFetch", "properties to fetch"),
            ("NSValuesToGroupBy", "properties to group by"), ("NSHavingPredicate", "having predicate"),
            ("NSRelationshipKeyPathsForPrefetching", "prefetched key paths")]
        where instance[key] != nil {
            if let members = try? graph.members(instance[key]), members.isEmpty { continue }
            warn("\(place): its \(label) are not read from compiled models and were ignored")
        }
        func count(_ key: String) -> Int { max(0, Int(clamping: instance[key]?.integerValue ?? 0)) }
        request.fetchLimit = count("NSFetchLimit")
        request.fetchOffset = count("NSFetchOffset")
        request.fetchBatchSize = count("NSBatchSize")
        if instance["NSHasFetchRequestFlags"]?.booleanValue == true, let flags = instance["NSFetchRequestFlags"]?.integerValue {
            request.returnsDistinctResults = flags & 0x1 != 0
            request.includesSubentities = flags & 0x2 != 0
            request.includesPropertyValues = flags & 0x4 != 0
            request.returnsObjectsAsFaults = flags & 0x8 != 0
            request.includesPendingChanges = flags & 0x10 != 0
        }
        switch instance["NSResultType"]?.integerValue ?? 0 {
        case 0: request.resultType = .managedObject
        case 1: request.resultType = .managedObjectID
        case 2: request.resultType = .dictionary
        case 4: request.resultType = .count
        case let other: warn("\(place): unknown NSResultType \(other); managed objects are returned")
        }
        return request
    }
}
