/// One object's relationship, changed member by member: the projected value of a
/// ``Relationship`` property (`post.$comments`). Each insert or removal costs O(1) however many
/// members the relationship has (O(k) for an ordered relationship changed at position k from
/// the end), keeps the inverse in step and records the change, as assigning the property does.
///
/// For example:
///
/// ```swift
/// final class Post: ManagedObject {
///     @Relationship var comments: Set<Comment>
/// }
/// for comment in newComments { post.$comments.insert(comment) }   // comment.post === post
/// post.$comments.remove(spam)
/// print(post.$comments.count, post.$comments.contains(first))
/// ```
///
/// On a to-one relationship it acts as a set of at most one member: inserting replaces the
/// destination, removing the current destination clears it.
public struct MutableRelationship<Value: RelationshipValue>: Sequence {
    let owner: ManagedObject
    /// The relationship's index in the owner's entity; `nil` when the entity has none.
    let index: Int?

    private var relationship: RelationshipDescription? {
        index.flatMap { owner.entity.properties[$0] as? RelationshipDescription }
    }

    /// How many objects the relationship holds.
    public var count: Int {
        guard let index, let relationship else { return 0 }
        return relationship.isToMany ? owner.toManyObjects(at: index).count : (owner.toOneObject(at: index) == nil ? 0 : 1)
    }

    /// Whether the relationship holds `object`.
    public func contains(_ object: Value.Destination) -> Bool {
        guard let index, let relationship else { return false }
        return relationship.isToMany ? owner.toManyObjects(at: index).contains(object) : owner.toOneObject(at: index) === object
    }

    /// Adds `object` (at the end of an ordered relationship) and sets its inverse.
    ///
    /// - Returns: whether the relationship changed (false when `object` already was a member).
    @discardableResult
    public func insert(_ object: Value.Destination) -> Bool {
        guard let index, let relationship else { return false }
        guard relationship.isToMany else {
            guard owner.toOneObject(at: index) !== object else { return false }
            owner.setToOne(object, at: index)
            return true
        }
        return owner.addToToMany(object, at: index, inverse: relationship.inverseRelationship)
    }

    /// Adds each of `objects` in turn.
    public func insert<Objects: Sequence>(contentsOf objects: Objects) where Objects.Element == Value.Destination {
        for object in objects { insert(object) }
    }

    /// Removes `object` and clears its inverse.
    ///
    /// - Returns: whether the relationship changed (false when `object` was not a member).
    @discardableResult
    public func remove(_ object: Value.Destination) -> Bool {
        guard let index, let relationship else { return false }
        guard relationship.isToMany else {
            guard owner.toOneObject(at: index) === object else { return false }
            owner.setToOne(nil, at: index)
            return true
        }
        return owner.removeFromToMany(object, at: index, inverse: relationship.inverseRelationship)
    }

    /// Removes every member.
    public func removeAll() {
        for object in Array(self) { remove(object) }
    }

    /// The members, in order for an ordered relationship.
    public func makeIterator() -> IndexingIterator<[Value.Destination]> {
        guard let index, let relationship else { return [Value.Destination]().makeIterator() }
        let objects = relationship.isToMany ? owner.toManyObjects(at: index).objects : owner.toOneObject(at: index).map { [$0] } ?? []
        return objects.compactMap { $0 as? Value.Destination }.makeIterator()
    }
}

extension MutableRelationship {
    /// Inserts `object` at `position` of an ordered relationship (moving it there if it already
    /// is a member) and sets its inverse.
    ///
    /// For example:
    ///
    /// ```swift
    /// playlist.$songs.insert(song, at: 0)
    /// ```
    public func insert<Destination>(_ object: Destination, at position: Int) where Value == [Destination] {
        guard let index, let relationship, relationship.isToMany else { return }
        if owner.toManyObjects(at: index).contains(object) {
            owner.removeFromToMany(object, at: index, inverse: relationship.inverseRelationship)
        }
        owner.addToToMany(object, at: index, inverse: relationship.inverseRelationship, position: position)
    }
}
