/// What an object reaches its context through: one link per context, held strongly by each of
/// the context's objects and holding the context weakly. A weak reference in every object cost
/// each object made, registered and freed an update of the context's side-table count (about
/// 4 % of a large fetch); the shared link costs a retain of one object that stays in cache.
///
/// For example (inside StoreCore):
///
/// ```swift
/// object.managedObjectContext = context   // object.contextLink === context.link
/// object.managedObjectContext = nil       // object.contextLink === ContextLink.none
/// ```
final class ContextLink: @unchecked Sendable {
    // @unchecked: `context` is set once, by the context's initializer, before the link is
    // shared; after that it changes only when the context is freed, which the runtime makes
    // atomic for weak references.
    /// The context; `nil` once it is freed, and always for ``none``.
    weak var context: ManagedObjectContext?

    /// The link of objects that belong to no context.
    static let none = ContextLink()
}
