/// A typed relationship property on a ``ManagedObject`` subclass: `Destination?` for to-one,
/// `Set<Destination>` for to-many, `[Destination]` for ordered to-many.
///
/// Setting one side updates the inverse at once; a to-many is loaded the first time it is read.
///
/// For example:
///
/// ```swift
/// final class Post: ManagedObject {
///     @Relationship var comments: Set<Comment>
/// }
/// final class Comment: ManagedObject {
///     @Relationship var post: Post?
/// }
/// post.comments.insert(comment)      // comment.post === post
/// post.$comments.insert(comment)     // the same, in O(1) however many comments the post has
/// ```
///
/// Reading `post.comments` builds a `Set` of the members and assigning one compares it with the
/// relationship, so `post.comments.insert(c)` costs O(n) for n members. To change a large
/// relationship one member at a time, go through the projected value `post.$comments` (a
/// ``MutableRelationship``): each insert or removal costs O(1).
@propertyWrapper
public struct Relationship<Value: RelationshipValue> {
    let declaredKey: DeclaredKey

    /// Uses the property's own name as the relationship's key.
    public init() { declaredKey = DeclaredKey() }
    /// Uses `key` as the relationship's key.
    public init(_ key: String) { declaredKey = DeclaredKey(key) }

    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Value {
        get {
            let entity = object.entity
            guard let index = entity.typedPropertyIndexes.index(for: storageKeyPath, access: .relationshipRead(wrapped: wrappedKeyPath), explicitKey: object[keyPath: storageKeyPath].declaredKey.explicitKey, in: entity),
                let relationship = entity.properties[index] as? RelationshipDescription
            else { return Value(relatedObjects: []) }
            if relationship.isToMany { return Value(relatedObjects: object.toManyObjects(at: index).objects) }
            return Value(relatedObjects: object.toOneObject(at: index).map { [$0] } ?? [])
        }
        set {
            let entity = object.entity
            guard let index = entity.typedPropertyIndexes.index(for: storageKeyPath, explicitKey: object[keyPath: storageKeyPath].declaredKey.explicitKey, in: entity),
                let relationship = entity.properties[index] as? RelationshipDescription
            else { return }
            if relationship.isToMany {
                object.setToMany(newValue.relatedObjects, at: index)
            } else {
                object.setToOne(newValue.relatedObjects.first, at: index)
            }
        }
    }

    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        projected projectedKeyPath: KeyPath<Object, MutableRelationship<Value>>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> MutableRelationship<Value> {
        let entity = object.entity
        let index = entity.typedPropertyIndexes.index(for: storageKeyPath, explicitKey: object[keyPath: storageKeyPath].declaredKey.explicitKey, in: entity)
        return MutableRelationship(owner: object, index: index)
    }

    @available(*, unavailable, message: "@Relationship is only available on ManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }
    }

    @available(*, unavailable, message: "@Relationship is only available on ManagedObject subclasses")
    public var projectedValue: MutableRelationship<Value> { fatalError("unavailable") }
}

extension Relationship: ManagedPropertyDeclaration {
    func mismatch(with property: PropertyDescription) -> String? {
        guard let relationship = property as? RelationshipDescription else { return "declared with @Relationship but it is an attribute" }
        switch Value.kind {
        case .toOne where relationship.isToMany: return "a to-many relationship must be declared as Set<…> or [...]"
        case .toMany where !relationship.isToMany, .ordered where !relationship.isToMany: return "a to-one relationship must be declared as Destination?"
        case .toMany where relationship.isOrdered: return "an ordered relationship must be declared as [Destination]"
        case .ordered where !relationship.isOrdered: return "an unordered relationship must be declared as Set<Destination>"
        default: break
        }
        if let destinationClass = relationship.destinationEntity?.managedObjectClass,
            !destinationClass.isSubclassOrSame(of: Value.destinationClass)
        {
            return "destination \(relationship.destinationEntityName) is represented by \(destinationClass), not \(Value.destinationClass)"
        }
        return nil
    }
}

/// A Swift type that can hold a relationship's value: `Destination?`, `Set<Destination>` or
/// `[Destination]`.
///
/// For example:
///
/// ```swift
/// final class Post: ManagedObject {
///     @Relationship var author: Author?           // to-one: an optional
///     @Relationship var comments: Set<Comment>    // to-many: a set
///     @Relationship var photos: [Photo]           // ordered to-many: an array
/// }
/// ```
public protocol RelationshipValue {
    /// The class of the objects the relationship holds.
    associatedtype Destination: ManagedObject
    /// Makes the Swift value from the relationship's objects (at most one for a to-one).
    init(relatedObjects: [ManagedObject])
    /// The objects the value holds, to store in the relationship.
    var relatedObjects: [ManagedObject] { get }
    /// The relationship shape this type holds; a model whose class declares it for a relationship of
    /// another shape is refused (`classMismatch`).
    static var kind: RelationshipValueKind { get }
    /// The class of the objects this type holds; the destination entity's class must be it or a
    /// subclass (`classMismatch` otherwise).
    static var destinationClass: ManagedObject.Type { get }
}

/// Which relationship shapes a ``RelationshipValue`` type can hold.
///
/// For example:
///
/// ```swift
/// Optional<Author>.kind     // .toOne
/// Set<Comment>.kind         // .toMany
/// Array<Photo>.kind         // .ordered
/// ```
public enum RelationshipValueKind: Sendable {
    /// The shapes:
    /// - `toOne`: one object or none, held as `Destination?`.
    /// - `toMany`: an unordered to-many relationship, held as `Set<Destination>`.
    /// - `ordered`: an ordered to-many relationship, held as `[Destination]`.
    case toOne, toMany, ordered
}

extension Optional: RelationshipValue where Wrapped: ManagedObject {
    /// The class of the one related object, `Wrapped`.
    public typealias Destination = Wrapped
    /// The first object, or `nil` when there is none.
    public init(relatedObjects: [ManagedObject]) { self = relatedObjects.first as? Wrapped }
    /// The object, or none for `nil`.
    public var relatedObjects: [ManagedObject] { self.map { [$0] } ?? [] }
    /// `.toOne`: an optional holds a to-one relationship.
    public static var kind: RelationshipValueKind { .toOne }
    /// `Wrapped`, the class of the object held.
    public static var destinationClass: ManagedObject.Type { Wrapped.self }
}

extension Set: RelationshipValue where Element: ManagedObject {
    /// The class of the set's objects, `Element`.
    public typealias Destination = Element
    /// The objects of class `Element`, as a set.
    public init(relatedObjects: [ManagedObject]) { self.init(relatedObjects.compactMap { $0 as? Element }) }
    /// The set's objects, in no particular order.
    public var relatedObjects: [ManagedObject] { Array(self) }
    /// `.toMany`: a set holds an unordered to-many relationship.
    public static var kind: RelationshipValueKind { .toMany }
    /// `Element`, the class of the objects held.
    public static var destinationClass: ManagedObject.Type { Element.self }
}

extension Array: RelationshipValue where Element: ManagedObject {
    /// The class of the array's objects, `Element`.
    public typealias Destination = Element
    /// The objects of class `Element`, in the relationship's order.
    public init(relatedObjects: [ManagedObject]) { self = relatedObjects.compactMap { $0 as? Element } }
    /// The array's objects, in order.
    public var relatedObjects: [ManagedObject] { self }
    /// `.ordered`: an array holds an ordered to-many relationship.
    public static var kind: RelationshipValueKind { .ordered }
    /// `Element`, the class of the objects held.
    public static var destinationClass: ManagedObject.Type { Element.self }
}
