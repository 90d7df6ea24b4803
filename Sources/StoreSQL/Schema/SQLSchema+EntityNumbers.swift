import StoreCore

extension SQLSchema {
    /// The entity numbers (`Z_ENT`) Core Data gives the entities of a new store: depth-first
    /// through the inheritance tree from 1, root entities in case-insensitive name order, each
    /// followed by its sub-entities (again in case-insensitive name order) and theirs, before the
    /// next root. Names equal but for case are ordered by their code units.
    ///
    /// Checked against the Apple-written stores in the test fixtures (`SyncableSettingsMetadata` 1
    /// before `SyncFeatureEntity` 2) and stores Core Data wrote with inheritance
    /// (`Car` 1, `SportCar` 2, `ExpensiveSportCar` 3, `Person` 4).
    ///
    /// For example:
    ///
    /// ```swift
    /// SQLSchema.coreDataEntityNumbers(of: model)   // ["Car": 1, "SportCar": 2, "ExpensiveSportCar": 3, "Person": 4]
    /// ```
    package static func coreDataEntityNumbers(of model: ManagedObjectModel) -> [String: Int64] {
        var numbers: [String: Int64] = [:]
        var pending = model.entities.filter { $0.superentity == nil }.sorted(by: precedesInCoreDataOrder).reversed().map { $0 }
        // A stack rather than recursion: a deep hierarchy cannot exhaust the call stack.
        while let entity = pending.popLast() {
            guard numbers[entity.name] == nil else { continue }
            numbers[entity.name] = Int64(numbers.count + 1)
            pending += entity.subentities.sorted(by: precedesInCoreDataOrder).reversed()
        }
        return numbers
    }

    /// `NSString.caseInsensitiveCompare(_:)`'s order, which Core Data sorts entities by: the names
    /// folded to lower case, compared by UTF-16 code units; ties broken by the names themselves.
    package static func precedesInCoreDataOrder(_ first: EntityDescription, _ second: EntityDescription) -> Bool {
        let a = first.name.lowercased(), b = second.name.lowercased()
        if a != b { return a.utf16.lexicographicallyPrecedes(b.utf16) }
        return first.name.utf16.lexicographicallyPrecedes(second.name.utf16)
    }
}
