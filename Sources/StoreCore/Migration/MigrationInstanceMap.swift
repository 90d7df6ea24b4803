/// Which destination objects a migration made from which source objects, by ID only — never
/// the objects — so a ``MigrationManager`` can let go of each batch of objects it made and
/// still find them for the relationship phase and for ``MigrationManager/destinationInstances(forEntityMappingName:sourceInstances:)``.
///
/// Each association is a link: the source ID, the destination ID, the entity mapping (by number)
/// and the next link from the same source. A destination inserted in the batch under way has a
/// temporary ID until the batch is saved; ``adoptPermanentIDs()`` then records its permanent one.
///
/// For example:
///
/// ```swift
/// var map = MigrationInstanceMap()
/// map.associate(source: person.objectID, destination: human, mapping: "PersonToHuman")
/// map.destinations(of: person.objectID, mapping: "PersonToHuman")   // [human.objectID]
/// ```
///
/// Memory: about 100 bytes per association (two IDs in arrays, two hash tables by ID).
struct MigrationInstanceMap {
    private var mappingNames: [String] = []
    private var mappingNumbers: [String: Int32] = [:]
    private var sources: [ManagedObjectID] = []
    private var destinations: [ManagedObjectID] = []
    private var mappings: [Int32] = []
    /// The next link from the same source, or -1.
    private var nextFromSource: [Int32] = []
    private var firstFromSource: [ManagedObjectID: Int32] = [:]
    private var linkToDestination: [ManagedObjectID: Int32] = [:]
    private var linksByMapping: [[Int32]] = []
    /// Destinations of the batch under way, whose IDs may still be temporary.
    private var unsaved: [(link: Int32, object: ManagedObject)] = []

    /// Records that `destination` was made from `source` by the mapping named `mapping`.
    mutating func associate(source: ManagedObjectID, destination: ManagedObject, mapping: String) {
        let number: Int32
        if let known = mappingNumbers[mapping] {
            number = known
        } else {
            number = Int32(mappingNames.count)
            mappingNames.append(mapping)
            mappingNumbers[mapping] = number
            linksByMapping.append([])
        }
        let link = Int32(destinations.count)
        sources.append(source)
        destinations.append(destination.objectID)
        mappings.append(number)
        nextFromSource.append(-1)
        if var last = firstFromSource[source] {
            while nextFromSource[Int(last)] >= 0 { last = nextFromSource[Int(last)] }
            nextFromSource[Int(last)] = link
        } else {
            firstFromSource[source] = link
        }
        linkToDestination[destination.objectID] = link
        linksByMapping[Int(number)].append(link)
        if destination.objectID.isTemporaryID { unsaved.append((link, destination)) }
    }

    /// After a save: the destinations made since the last save are known by their permanent IDs.
    mutating func adoptPermanentIDs() {
        for (link, object) in unsaved {
            let old = destinations[Int(link)], new = object.objectID
            guard old != new else { continue }
            linkToDestination[old] = nil
            linkToDestination[new] = link
            destinations[Int(link)] = new
        }
        unsaved.removeAll(keepingCapacity: true)
    }

    /// The destinations made from `source` by the mapping named `mapping` (by any for `nil`), in
    /// the order they were made.
    func destinations(of source: ManagedObjectID, mapping: String?) -> [ManagedObjectID] {
        guard var link = firstFromSource[source] else { return [] }
        let number = mapping.map { mappingNumbers[$0] ?? -1 }
        var found: [ManagedObjectID] = []
        while link >= 0 {
            if number == nil || mappings[Int(link)] == number { found.append(destinations[Int(link)]) }
            link = nextFromSource[Int(link)]
        }
        return found
    }

    /// The source `destination` was made from by the mapping named `mapping` (by any for `nil`).
    func source(of destination: ManagedObjectID, mapping: String?) -> ManagedObjectID? {
        guard let link = linkToDestination[destination] else { return nil }
        if let mapping, mappingNumbers[mapping] != mappings[Int(link)] { return nil }
        return sources[Int(link)]
    }

    /// How many destinations the mapping named `mapping` made.
    func count(of mapping: String) -> Int {
        mappingNumbers[mapping].map { linksByMapping[Int($0)].count } ?? 0
    }

    /// The destinations the mapping named `mapping` made, `range` of them in the order they were
    /// made, each with its source.
    func links(of mapping: String, in range: Range<Int>) -> [(source: ManagedObjectID, destination: ManagedObjectID)] {
        guard let number = mappingNumbers[mapping] else { return [] }
        return linksByMapping[Int(number)][range].map { (sources[Int($0)], destinations[Int($0)]) }
    }
}
