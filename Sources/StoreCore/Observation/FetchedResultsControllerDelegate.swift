import Foundation

/// What happened to an object or a section of a ``FetchedResultsController``'s results.
///
/// For example:
///
/// ```swift
/// switch (type, indexPath, newIndexPath) {
/// case (.insert, _, let new?): rows.insert(object.title, at: new.item)
/// case (.delete, let old?, _): rows.remove(at: old.item)
/// case (.move, let old?, let new?): rows.remove(at: old.item); rows.insert(object.title, at: new.item)
/// case (.update, let old?, _): rows[old.item] = object.title
/// default: break
/// }
/// ```
public enum FetchedResultsChangeType: Sendable, Hashable {
    /// It entered the results (inserted, or changed to match the predicate).
    case insert
    /// It left the results (deleted, or changed not to match the predicate).
    case delete
    /// It changed place: its sort keys or its section changed.
    case move
    /// It changed without changing place.
    case update
}

/// One section of a ``FetchedResultsController``'s results: the objects sharing a value of the
/// section key path, in result order.
///
/// For example:
///
/// ```swift
/// for section in controller.sections ?? [] {
///     print(section.name, section.numberOfObjects)
/// }
/// ```
public struct FetchedResultsSectionInfo<Result: ManagedObject> {
    /// The section key path's value for the section's objects, as text (`""` for no value).
    public let name: String
    /// The section's index title (by default the capitalized first letter of its name).
    public let indexTitle: String?
    /// The section's objects, in result order.
    public let objects: [Result]
    /// The number of objects in the section.
    public var numberOfObjects: Int { objects.count }
}

/// Receives a ``FetchedResultsController``'s changes, on its context's queue, as its context
/// processes changes (every save, fetch and `processPendingChanges()`, and the end of every
/// `perform` block) or merges another context's save.
///
/// Every method has an empty default. For one batch of changes a delegate receives
/// `controllerWillChangeContent`, then the section changes, then the object changes (old index
/// paths refer to the results before the batch, new ones to the results after it, as a table
/// view's batch updates expect), then `controllerDidChangeContent` and the same batch as a
/// difference of object IDs.
///
/// For example:
///
/// ```swift
/// final class PostList: FetchedResultsControllerDelegate {
///     func controller(_ controller: FetchedResultsController<Post>, didChange object: Post,
///                     at indexPath: IndexPath?, for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {
///         print(type, object.title, indexPath as Any, newIndexPath as Any)
///     }
/// }
/// ```
public protocol FetchedResultsControllerDelegate<Result>: AnyObject {
    /// The type of object the delegate's controller fetches (the `ResultType` of Core Data's
    /// `NSFetchedResultsController<ResultType>`).
    associatedtype Result: ManagedObject
    /// Before the first change of a batch.
    func controllerWillChangeContent(_ controller: FetchedResultsController<Result>)
    /// A section appeared (`insert`, at its new index) or disappeared (`delete`, at its old index).
    func controller(
        _ controller: FetchedResultsController<Result>, didChange sectionInfo: FetchedResultsSectionInfo<Result>,
        atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType)
    /// An object entered (`newIndexPath`), left (`indexPath`), moved (both) or changed in place (both, equal).
    func controller(
        _ controller: FetchedResultsController<Result>, didChange object: Result, at indexPath: IndexPath?,
        for type: FetchedResultsChangeType, newIndexPath: IndexPath?)
    /// After the last change of a batch.
    func controllerDidChangeContent(_ controller: FetchedResultsController<Result>)
    /// The batch as removals (old offsets) and insertions (new offsets) of object IDs over the
    /// whole result list; a moved object is removed and inserted, associated with itself.
    func controller(_ controller: FetchedResultsController<Result>, didChangeContentWith difference: CollectionDifference<ManagedObjectID>)
    /// The index title of a section; `nil` uses the default (the name's capitalized first letter).
    func controller(_ controller: FetchedResultsController<Result>, sectionIndexTitleForSectionName sectionName: String) -> String?
    /// The controller could not follow a change (see ``FetchedResultsController/lastError``):
    /// a refetch failed, or an object's section key path, sort keys or predicate could not be
    /// evaluated. Called after the batch's other changes, if any.
    func controller(_ controller: FetchedResultsController<Result>, didFailWith error: any Error)
}

extension FetchedResultsControllerDelegate {
    /// Does nothing by default.
    public func controllerWillChangeContent(_ controller: FetchedResultsController<Result>) {}
    /// Does nothing by default: section changes are ignored.
    public func controller(
        _ controller: FetchedResultsController<Result>, didChange sectionInfo: FetchedResultsSectionInfo<Result>,
        atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType
    ) {}
    /// Does nothing by default: object changes are ignored.
    public func controller(
        _ controller: FetchedResultsController<Result>, didChange object: Result, at indexPath: IndexPath?,
        for type: FetchedResultsChangeType, newIndexPath: IndexPath?
    ) {}
    /// Does nothing by default.
    public func controllerDidChangeContent(_ controller: FetchedResultsController<Result>) {}
    /// Does nothing by default: the difference is ignored.
    public func controller(_ controller: FetchedResultsController<Result>, didChangeContentWith difference: CollectionDifference<ManagedObjectID>) {}
    /// Returns `nil` by default, so the section's index title is its name's first letter, uppercased.
    public func controller(_ controller: FetchedResultsController<Result>, sectionIndexTitleForSectionName sectionName: String) -> String? { nil }
    /// Does nothing by default: the error stays in ``FetchedResultsController/lastError`` and the log.
    public func controller(_ controller: FetchedResultsController<Result>, didFailWith error: any Error) {}
}
