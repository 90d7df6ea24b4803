/// Lets other objects refer weakly to an object without slowing down its reference counting.
///
/// The first weak reference Swift takes to an object moves its reference counts into a side
/// table, and every retain and release of that object takes the slow path from then on. An
/// entity is retained by every object and snapshot of it, many times per fetched row, while
/// only its properties refer back to it, weakly: so they refer weakly to the entity's anchor
/// instead, which only the entity holds, and which therefore goes — turning their references
/// nil — when the entity goes.
///
/// For example:
///
/// ```swift
/// weak var entityAnchor: WeakAnchor<EntityDescription>?
/// var entity: EntityDescription? { entityAnchor?.object }
/// ```
final class WeakAnchor<Object: AnyObject>: @unchecked Sendable {
    // @unchecked: `object` never changes after init.
    //
    // unowned(unsafe): the anchor is held strongly by `object` alone, so it lives no longer than
    // `object`; a weak reference to the anchor is nil once `object` is gone.
    unowned(unsafe) let object: Object

    init(_ object: Object) { self.object = object }
}
