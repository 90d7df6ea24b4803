extension ManagedObjectContext {
    /// Applies delete rules to objects deleted since the last call and posts
    /// `Notification.Name.managedObjectContextObjectsDidChange` for the changes made
    /// since. Saves and fetches call it; call it yourself to see cascades at once.
    ///
    /// For example:
    ///
    /// ```swift
    /// context.delete(post)
    /// context.processPendingChanges()
    /// context.deletedObjects.contains(comment)    // true with a cascade rule
    /// ```
    public func processPendingChanges() {
        checkQueue(accessing: nil)
        propagateDeletions()
        flushUndoRecord()
        postObjectsDidChange()
    }

    func propagateDeletions() {
        // Objects refused earlier by a deny rule may have been freed since.
        for (id, object) in deniedDeletions where object.state.isDeleted && denyingRelationship(of: object) == nil {
            deniedDeletions[id] = nil
            pendingDeletions.append(object)
        }
        // Taken a round at a time (cascades add the next round): taking objects one by one from
        // the front of the array would move the rest each time, quadratic in a large delete.
        while !pendingDeletions.isEmpty {
            let round = pendingDeletions
            pendingDeletions = []
            for object in round {
                guard object.state.isDeleted else { continue }  // inserted again since it was deleted
                if denyingRelationship(of: object) != nil {
                    deniedDeletions[ObjectIdentifier(object)] = object
                    continue
                }
                object.prepareForDeletion()
                applyDeleteRules(of: object)
            }
        }
        // Inserted-then-deleted objects leave the context once their rules have run (looked for
        // only when one was deleted: a large delete of saved objects is not walked again).
        if deletedInsertedObjects {
            deletedInsertedObjects = false
            for object in pendingChanges.deleted where object.state.isDeleted && !deletedSet.contains(object) {
                registered[object.objectID] = nil
            }
        }
    }

    /// The first deny-rule relationship that still holds an object, if any.
    func denyingRelationship(of object: ManagedObject) -> RelationshipDescription? {
        // Read from the layout first: `relationships` casts every property (a large delete asks for each object).
        guard object.entity.layout.hasRelationships else { return nil }
        return object.entity.relationships.first { relationship in
            guard relationship.deleteRule == .deny, let index = object.entity.propertyIndexes[relationship.name] else { return false }
            if relationship.isToMany { return object.toManyObjects(at: index).objects.contains { !$0.state.isDeleted } }
            return object.toOneObject(at: index).map { !$0.state.isDeleted } ?? false
        }
    }

    private func applyDeleteRules(of object: ManagedObject) {
        guard object.entity.layout.hasRelationships else { return }
        for relationship in object.entity.relationships {
            guard let index = object.entity.propertyIndexes[relationship.name] else { continue }
            // Without an inverse (possible in Xcode models) there is nothing to nullify, but a
            // cascade still deletes the destinations.
            let inverse = relationship.inverseRelationship
            let destinations = relationship.isToMany
                ? object.toManyObjects(at: index).objects
                : object.toOneObject(at: index).map { [$0] } ?? []
            switch relationship.deleteRule {
            case .cascade:
                for destination in destinations {
                    if let inverse { destination.unlinkRaw(object, from: inverse) }
                    delete(destination)
                }
            case .nullify:
                guard let inverse else { break }
                for destination in destinations where !destination.state.isDeleted {
                    destination.unlinkRaw(object, from: inverse)
                }
            case .deny, .noAction:
                break
            }
        }
    }
}
