import Foundation

// Following the context: a batch of changed objects is taken out of the results, those that
// match the predicate are put back where the sort descriptors place them (binary search), and
// the delegate is told what moved. The results are scanned once per batch; nothing is refetched,
// except for a request with a fetch limit or offset, whose window other objects may enter.
extension FetchedResultsController {
    func contextObjectsDidChange(_ batch: ObjectChangeBatch) {
        guard let old = results else { return }
        let context = managedObjectContext
        var updated: Set<ObjectIdentifier> = []
        var candidates: [ManagedObject] = []
        var touched: Set<ObjectIdentifier> = []
        func consider(_ object: ManagedObject, updating: Bool) {
            guard accepts(object), touched.insert(ObjectIdentifier(object)).inserted else { return }
            candidates.append(object)
            if updating { updated.insert(ObjectIdentifier(object)) }
        }
        var failure: (any Error)?
        for object in batch.deleted + batch.invalidated { touched.insert(ObjectIdentifier(object)) }
        for object in batch.inserted { consider(object, updating: false) }
        for object in batch.updated + batch.refreshed { consider(object, updating: true) }
        for id in batch.mergedIDs where entity.isKind(ofName: id.entityName, in: context.managedObjectModel) {
            if let object = context.registeredOrFaultObject(for: id) { consider(object, updating: true) }
        }
        guard !touched.isEmpty else { return }

        var new: [ManagedObject]
        var layout = SectionLayout(names: sectionNames, starts: sectionStarts)
        if fetchRequest.fetchLimit > 0 || fetchRequest.fetchOffset > 0 {
            let fetched: [ManagedObject]
            let sections: (names: [String], starts: [Int])
            do {
                fetched = try context.fetch(fetchRequest)
                sections = try self.sections(of: fetched)
            } catch {
                return failedToFollowChanges(error)   // the results stay as they were
            }
            new = fetched
            layout = SectionLayout(names: sections.names, starts: sections.starts)
            let before = Set(old.map(ObjectIdentifier.init)), after = Set(new.map(ObjectIdentifier.init))
            touched.formUnion(before.symmetricDifference(after))   // objects pushed into or out of the window
        } else {
            new = old
            let removed = Self.offsets(of: touched, in: old).values.sorted()
            if !removed.isEmpty {
                // A few by offset (no pass over the rest); many in one pass.
                if removed.count <= 32 {
                    for offset in removed.reversed() { new.remove(at: offset) }
                } else {
                    new.removeAll { touched.contains(ObjectIdentifier($0)) }
                }
                layout.remove(offsets: removed)
            }
            for object in candidates where !object.isDeleted && object.managedObjectContext === context {
                do {
                    guard object is Result, try matches(object) else { continue }
                    try insertSorted(object, into: &new, layout: &layout)
                } catch {
                    failure = failure ?? error
                }
            }
            layout.dropEmptySections(count: new.count, keepingOne: sectionNameKeyPath == nil)
        }
        report(old: old, oldNames: sectionNames, oldStarts: sectionStarts, new: new, newNames: layout.names, newStarts: layout.starts, touched: touched, updated: updated)
        if let failure { failedToFollowChanges(failure) } else { followedChanges() }
    }

    /// Where the objects of `wanted` are in `objects`: one pass, comparing identities (a few
    /// changed objects are looked for without hashing every result).
    static func offsets(of wanted: Set<ObjectIdentifier>, in objects: [ManagedObject]) -> [ObjectIdentifier: Int] {
        var found: [ObjectIdentifier: Int] = [:]
        guard !wanted.isEmpty else { return found }
        let few = wanted.count <= 8 ? Array(wanted) : nil
        objects.withUnsafeBufferPointer { buffer in
            for offset in buffer.indices {
                let id = ObjectIdentifier(buffer[offset])
                if let few { if few.contains(id) { found[id] = offset } } else if wanted.contains(id) { found[id] = offset }
            }
        }
        return found
    }

    /// Whether an object is of the request's entity (or a sub-entity, when the request includes them).
    private func accepts(_ object: ManagedObject) -> Bool {
        fetchRequest.includesSubentities ? object.entity.isKind(of: entity) : object.entity === entity
    }

    private func matches(_ object: ManagedObject) throws -> Bool {
        guard predicate != nil else { return true }
        return try predicate?.evaluate(object) == true
    }

    /// Puts `object` into `objects` (in order) where the sort descriptors place it, after the
    /// objects it sorts equal to, and within its section's run when the section exists.
    ///
    /// - Throws: when the object's sort keys cannot be read (it is then left out) or its
    ///   section name (it is then filed under `""`).
    private func insertSorted(_ object: ManagedObject, into objects: inout [ManagedObject], layout: inout SectionLayout) throws {
        let keys = try comparator.keys(for: object)
        var failure: (any Error)?
        let name: String
        do { name = try sectionName(of: object) } catch {
            name = ""
            failure = error
        }
        let section = layout.names.firstIndex(of: name)
        var low = 0, high = objects.count
        if let section { (low, high) = (layout.starts[section], layout.end(of: section, count: objects.count)) }
        while low < high {
            let middle = (low + high) / 2
            // An object already placed whose keys cannot be read sorts after this one.
            let other = (try? comparator.keys(for: objects[middle])) ?? []
            if other.count == keys.count, comparator.compare(keys, other) == .orderedAscending { high = middle } else { low = middle + 1 }
        }
        if section == nil { low = layout.boundary(atOrAfter: low, count: objects.count) }
        objects.insert(object, at: low)
        layout.insert(at: low, section: section, name: name)
        if let failure { throw failure }
    }

    /// Installs the new results and tells the delegate what changed between the two lists.
    private func report(
        old: [ManagedObject], oldNames: [String], oldStarts: [Int], new: [ManagedObject], newNames: [String], newStarts: [Int],
        touched: Set<ObjectIdentifier>, updated: Set<ObjectIdentifier>
    ) {
        let oldOffsets = Self.offsets(of: touched, in: old)
        let newOffsets = Self.offsets(of: touched, in: new)
        let removedSections = oldNames.enumerated().filter { !newNames.contains($0.element) }
        let addedSections = newNames.enumerated().filter { !oldNames.contains($0.element) }

        var deletions: [(ManagedObject, IndexPath, Int)] = []
        var insertions: [(ManagedObject, IndexPath, Int)] = []
        var moves: [(ManagedObject, IndexPath, IndexPath, Int, Int)] = []
        var updates: [(ManagedObject, IndexPath, IndexPath)] = []
        for (id, offset) in oldOffsets.sorted(by: { $0.value < $1.value }) {
            let object = old[offset]
            let oldPath = indexPath(forOffset: offset, starts: oldStarts)
            if let newOffset = newOffsets[id] {
                let newPath = indexPath(forOffset: newOffset, starts: newStarts)
                let sameSection = oldNames[oldPath.sectionIndex] == newNames[newPath.sectionIndex]
                if sameSection && oldPath == newPath {
                    if updated.contains(id) { updates.append((object, oldPath, newPath)) }
                } else {
                    moves.append((object, oldPath, newPath, offset, newOffset))
                }
            } else {
                deletions.append((object, oldPath, offset))
            }
        }
        for (id, offset) in newOffsets.sorted(by: { $0.value < $1.value }) where oldOffsets[id] == nil {
            insertions.append((new[offset], indexPath(forOffset: offset, starts: newStarts), offset))
        }

        results = new
        sectionNames = newNames
        sectionStarts = newStarts
        guard !deletions.isEmpty || !insertions.isEmpty || !moves.isEmpty || !updates.isEmpty || !removedSections.isEmpty || !addedSections.isEmpty,
            let delegate
        else { return }

        delegate.controllerWillChangeContent(self)
        for (index, name) in removedSections {
            delegate.controller(self, didChange: FetchedResultsSectionInfo(name: name, indexTitle: sectionIndexTitle(forSectionName: name), objects: []), atSectionIndex: index, for: .delete)
        }
        for (index, _) in addedSections {
            delegate.controller(self, didChange: sectionInfo(index, objects: new[sectionRange(index, count: new.count)]), atSectionIndex: index, for: .insert)
        }
        for (object, path, _) in deletions {
            if let object = object as? Result { delegate.controller(self, didChange: object, at: path, for: .delete, newIndexPath: nil) }
        }
        for (object, path, _) in insertions {
            if let object = object as? Result { delegate.controller(self, didChange: object, at: nil, for: .insert, newIndexPath: path) }
        }
        for (object, from, to, _, _) in moves {
            if let object = object as? Result { delegate.controller(self, didChange: object, at: from, for: .move, newIndexPath: to) }
        }
        for (object, from, to) in updates {
            if let object = object as? Result { delegate.controller(self, didChange: object, at: from, for: .update, newIndexPath: to) }
        }
        delegate.controllerDidChangeContent(self)

        var steps: [CollectionDifference<ManagedObjectID>.Change] = []
        for (object, _, offset) in deletions { steps.append(.remove(offset: offset, element: object.objectID, associatedWith: nil)) }
        for (object, _, offset) in insertions { steps.append(.insert(offset: offset, element: object.objectID, associatedWith: nil)) }
        for (object, _, _, from, to) in moves where from != to {
            steps.append(.remove(offset: from, element: object.objectID, associatedWith: to))
            steps.append(.insert(offset: to, element: object.objectID, associatedWith: from))
        }
        if let difference = CollectionDifference(steps) {
            delegate.controller(self, didChangeContentWith: difference)
        }
    }
}

/// The sections of a result list while it changes: each section's name and first offset.
struct SectionLayout {
    var names: [String]
    var starts: [Int]

    func end(of section: Int, count: Int) -> Int {
        section + 1 < starts.count ? starts[section + 1] : count
    }

    /// Takes out the objects at `offsets` (ascending): later sections start earlier.
    mutating func remove(offsets: [Int]) {
        var removedBefore = 0
        for section in starts.indices {
            while removedBefore < offsets.count, offsets[removedBefore] < starts[section] { removedBefore += 1 }
            starts[section] -= removedBefore
        }
    }

    /// `offset`, or the end of the section it falls inside: where a new section can start.
    func boundary(atOrAfter offset: Int, count: Int) -> Int {
        guard let section = starts.lastIndex(where: { $0 < offset }) else { return offset }
        return max(offset, end(of: section, count: count))
    }

    /// Records an object inserted at `offset`: into `section`, or, when `nil`, as the first of a
    /// new section named `name` (`offset` is then a section boundary).
    mutating func insert(at offset: Int, section: Int?, name: String) {
        let position = section.map { $0 + 1 } ?? (starts.firstIndex { $0 >= offset } ?? starts.count)
        for later in position..<starts.count { starts[later] += 1 }
        if section == nil {
            names.insert(name, at: position)
            starts.insert(offset, at: position)
        }
    }

    /// Removes sections left without objects (keeping one, for results without sections).
    mutating func dropEmptySections(count: Int, keepingOne: Bool) {
        var section = starts.count - 1
        while section >= 0 {
            if end(of: section, count: count) == starts[section], !(keepingOne && starts.count == 1) {
                names.remove(at: section)
                starts.remove(at: section)
            }
            section -= 1
        }
    }
}

extension EntityDescription {
    /// Whether the entity named `name` is this entity or one of its sub-entities.
    func isKind(ofName name: String, in model: ManagedObjectModel?) -> Bool {
        guard let other = model?.entitiesByName[name] else { return false }
        return other.isKind(of: self)
    }
}
