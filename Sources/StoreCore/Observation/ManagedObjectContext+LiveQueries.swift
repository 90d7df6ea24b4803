import Foundation

extension ManagedObjectContext {
    /// The results of a request now and after every save that changes them: a live query
    /// (SwiftData's `@Query`, GRDB's `ValueObservation`).
    ///
    /// The sequence yields the current results first, then fresh results after each commit to
    /// the coordinator's stores that touches the request's entity (or an entity its relationships
    /// reach) and changes the results: saves of this context and of every other root context of
    /// the coordinator, batch requests, and — for stores loaded with
    /// ``PersistentStoreOption/remoteChangeNotificationPost`` — commits by other coordinators and
    /// processes. A burst of commits is coalesced into one fetch; results are fetched in order on
    /// the context's queue, so none is older than one already yielded. Objects are the context's
    /// own (use them on its queue, as with any fetch) and are refreshed with the stored values.
    /// Iteration ends when the task stops iterating or is cancelled; a failed fetch ends it with
    /// the error.
    ///
    /// Unsaved changes of the context count as in any fetch, but only a commit triggers a new
    /// result: use a ``FetchedResultsController`` to follow unsaved changes as they happen.
    ///
    /// For example:
    ///
    /// ```swift
    /// var recent = FetchRequest<Post>()
    /// recent.sortDescriptors = [.descending("timestamp")]
    /// recent.fetchLimit = 20
    /// for try await posts in viewContext.changes(for: recent) {
    ///     render(posts)
    /// }
    /// ```
    public func changes<Result: FetchRequestResult>(for request: FetchRequest<Result>) -> AsyncThrowingStream<[Result], any Error> {
        var request = request
        request.shouldRefreshRefetchedObjects = true
        let query = request
        return observe(entityName: request.entityName) { [unowned self] in
            let results = try fetch(query)
            return (results, Self.fingerprint(of: results))
        }
    }

    /// The number of results of a request now and after every save that changes it; see
    /// ``changes(for:)``.
    ///
    /// For example:
    ///
    /// ```swift
    /// for try await unread in context.changes(forCountOf: FetchRequest<Message>(entityName: "Message", predicate: unreadOnly)) {
    ///     badge = unread
    /// }
    /// ```
    public func changes<Result: FetchRequestResult>(forCountOf request: FetchRequest<Result>) -> AsyncThrowingStream<Int, any Error> {
        observe(entityName: request.entityName) { [unowned self] in
            let count = try count(for: request)
            return (count, [.integer(Int64(count))])
        }
    }

    private func observe<Element>(
        entityName: String, fetch: @escaping () throws -> (Element, [StoreValue])
    ) -> AsyncThrowingStream<Element, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Element.self, throwing: (any Error).self)
        let entities = (try? managedObjectModel?.entity(named: entityName)).map(Self.entitiesAffecting) ?? [entityName]
        LiveQuery(context: self, entities: entities, continuation: continuation, fetch: fetch).start()
        return stream
    }

    /// The entities whose changes may change a fetch of `entity`: itself, its sub-entities, and
    /// every entity its relationships reach (predicates and sorts may follow them).
    static func entitiesAffecting(_ entity: EntityDescription) -> Set<String> {
        var found: Set<String> = []
        var pending = [entity]
        while let next = pending.popLast() {
            guard found.insert(next.name).inserted else { continue }
            pending.append(contentsOf: next.subentities)
            pending.append(contentsOf: next.relationships.compactMap(\.destinationEntity))
        }
        return found
    }

    /// What a live query compares to decide whether results changed: IDs, and each object's
    /// stored values.
    static func fingerprint<Result>(of results: [Result]) -> [StoreValue] {
        var fingerprint: [StoreValue] = []
        for result in results {
            switch result {
            case let object as ManagedObject:
                fingerprint.append(.objectID(object.objectID))
                fingerprint.append(contentsOf: object.currentSnapshot().values)
            case let id as ManagedObjectID:
                fingerprint.append(.objectID(id))
            case let row as FetchedDictionary:
                for key in row.keys.sorted() {
                    fingerprint.append(.string(key))
                    fingerprint.append(row[key] ?? .null)
                }
            default:
                fingerprint.append(.string("\(result)"))
            }
        }
        return fingerprint
    }
}
