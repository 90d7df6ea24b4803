import Foundation
import Logging

/// Keeps the results of a fetch request current as its context changes, grouped in sections,
/// and tells a delegate exactly what changed: Core Data's `NSFetchedResultsController`.
///
/// The controller follows its context's own changes before they are saved (as they are
/// processed: at every save, fetch, `processPendingChanges()` and the end of every `perform`
/// block) and the saves of other contexts the context merges (``ManagedObjectContext/automaticallyMergesChangesFromParent``,
/// ``ManagedObjectContext/mergeChanges(from:)``, a batch request's or history's changes merged
/// with ``ManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)``). An object that
/// starts or stops matching the predicate enters or leaves the results; one whose sort keys or
/// section change moves. Use it on its context's queue.
///
/// The request needs sort descriptors, and with a section key path its first sort descriptor
/// must order by the sections (the key path may go through to-one relationships, as in
/// `"author.name"`). `cacheName` is accepted for Core Data compatibility and has no effect:
/// sections are computed in memory.
///
/// For example:
///
/// ```swift
/// var request = FetchRequest<Post>()
/// request.sortDescriptors = [.ascending("category"), .descending("timestamp")]
/// let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: viewContext,
///                                           sectionNameKeyPath: "category", cacheName: nil)
/// controller.delegate = postList
/// try controller.performFetch()
/// let first = controller.object(at: IndexPath(item: 0, section: 0))
/// ```
public final class FetchedResultsController<Result: ManagedObject>: ContextObjectsListener {
    /// The request whose results the controller keeps.
    public let fetchRequest: FetchRequest<Result>
    /// The context the controller fetches from and follows.
    public let managedObjectContext: ManagedObjectContext
    /// The key path whose value groups the results into sections; `nil` for one section.
    public let sectionNameKeyPath: String?
    /// Accepted for Core Data compatibility; Stowage keeps no section cache on disk.
    public let cacheName: String?
    /// Receives the changes; held weakly.
    public weak var delegate: (any FetchedResultsControllerDelegate<Result>)?

    /// The results, in order; `nil` before ``performFetch()``.
    public var fetchedObjects: [Result]? {
        guard let results else { return nil }
        if let typedResults { return typedResults }
        let typed = results.compactMap { $0 as? Result }
        typedResults = typed
        return typed
    }

    /// Why the controller could not follow the context's last change, or `nil` when it could.
    ///
    /// Set (and passed to the delegate's ``FetchedResultsControllerDelegate/controller(_:didFailWith:)``
    /// and logged with the label `stowage.observation`) when a refetch — a request with a fetch
    /// limit or offset is refetched after each change — fails: the results then stay as they
    /// were; or when an object's section key path, sort keys or predicate cannot be evaluated:
    /// the object is then filed under the section named `""`, placed last in its section, or left
    /// out. Cleared by the next change followed without an error, and by ``performFetch()``.
    ///
    /// For example:
    ///
    /// ```swift
    /// try context.save()
    /// if let error = controller.lastError { print("the list may be stale:", error) }
    /// ```
    public private(set) var lastError: (any Error)?

    /// The results, untyped: the change tracking works on these (generic code over `Result`
    /// would not be specialized for the caller's class, and costs a type lookup per element).
    var results: [ManagedObject]? {
        didSet { typedResults = nil }
    }
    private var typedResults: [Result]?

    var sectionNames: [String] = []
    /// The offset in `fetchedObjects` of each section's first object.
    var sectionStarts: [Int] = []
    let entity: EntityDescription
    var predicate: CompiledPredicate<ManagedObject>?
    let comparator: SortComparator
    let evaluator = PredicateEvaluator()

    /// A controller over a request's results; nothing is fetched until ``performFetch()``.
    ///
    /// - Throws: ``ModelError`` when the request names an entity the context's model lacks;
    ///   ``FetchError`` (`invalidArgument`) without sort descriptors.
    public init(
        fetchRequest: FetchRequest<Result>, managedObjectContext: ManagedObjectContext, sectionNameKeyPath: String? = nil,
        cacheName: String? = nil
    ) throws {
        guard !fetchRequest.sortDescriptors.isEmpty else {
            throw FetchError(.invalidArgument, "a fetched results controller needs a fetch request with sort descriptors")
        }
        guard let model = managedObjectContext.managedObjectModel else {
            throw StoreError(.noStores, "\(managedObjectContext) has no persistent store coordinator")
        }
        entity = try model.entity(named: fetchRequest.entityName)
        self.fetchRequest = fetchRequest
        self.managedObjectContext = managedObjectContext
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = cacheName
        comparator = SortComparator(fetchRequest.sortDescriptors)
        predicate = fetchRequest.predicate.map { CompiledPredicate<ManagedObject>($0, fallbackSource: { $0 }) }
    }

    /// Fetches the results and starts following the context's changes. Call it again after
    /// changing what the request depends on (a variable in its predicate, say).
    ///
    /// - Throws: the fetch's errors; ``FetchError`` (`invalidArgument`) when the section key
    ///   path's values do not come in runs (the first sort descriptor must order by it).
    public func performFetch() throws {
        managedObjectContext.checkQueue(accessing: nil)
        let objects: [ManagedObject] = try managedObjectContext.fetch(fetchRequest)
        let (names, starts) = try sections(of: objects)
        lastError = nil
        results = objects
        sectionNames = names
        sectionStarts = starts
        managedObjectContext.addObjectsListener(self)
    }

    // MARK: Sections

    /// The sections of the results (always one, named `""`, without a section key path); `nil`
    /// before ``performFetch()``.
    public var sections: [FetchedResultsSectionInfo<Result>]? {
        guard let objects = results else { return nil }
        return sectionNames.indices.map { index in
            let range = sectionRange(index, count: objects.count)
            return sectionInfo(index, objects: objects[range])
        }
    }

    func sectionInfo(_ index: Int, objects: ArraySlice<ManagedObject>) -> FetchedResultsSectionInfo<Result> {
        let name = sectionNames[index]
        return FetchedResultsSectionInfo(name: name, indexTitle: sectionIndexTitle(forSectionName: name), objects: objects.compactMap { $0 as? Result })
    }

    /// The index titles of the sections, without repeats, in section order.
    public var sectionIndexTitles: [String] {
        var seen: Set<String> = []
        return sectionNames.compactMap { sectionIndexTitle(forSectionName: $0) }.filter { seen.insert($0).inserted }
    }

    /// The index title of a section: the delegate's, or the name's capitalized first letter.
    public func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        if let title = delegate?.controller(self, sectionIndexTitleForSectionName: sectionName) { return title }
        return sectionName.first.map { String($0).uppercased() }
    }

    /// The section whose index title is `title` (the first with it), or the last section
    /// before where it would be.
    public func section(forSectionIndexTitle title: String, at sectionIndex: Int) -> Int {
        sectionNames.firstIndex { sectionIndexTitle(forSectionName: $0) == title } ?? min(sectionIndex, max(sectionNames.count - 1, 0))
    }

    // MARK: Objects by index path

    /// The object at an index path (section, item).
    ///
    /// - Throws: ``FetchError`` (`invalidArgument`) for an index path outside the results.
    public func object(at indexPath: IndexPath) throws -> Result {
        guard let objects = results, indexPath.count == 2, sectionNames.indices.contains(indexPath.sectionIndex) else {
            throw FetchError(.invalidArgument, "no section \(indexPath.count == 2 ? indexPath.sectionIndex : -1) in the results")
        }
        let range = sectionRange(indexPath.sectionIndex, count: objects.count)
        guard indexPath.itemIndex >= 0, indexPath.itemIndex < range.count else {
            throw FetchError(.invalidArgument, "no item \(indexPath.itemIndex) in section \(indexPath.sectionIndex), which holds \(range.count)")
        }
        guard let object = objects[range.lowerBound + indexPath.itemIndex] as? Result else {
            throw FetchError(.wrongResultType, "the object at \(indexPath) is not a \(Result.self)")
        }
        return object
    }

    /// The index path of an object, or `nil` when it is not among the results.
    public func indexPath(forObject object: Result) -> IndexPath? {
        guard let offset = results?.firstIndex(where: { $0 === object }) else { return nil }
        return indexPath(forOffset: offset, starts: sectionStarts)
    }

    func sectionRange(_ section: Int, count: Int) -> Range<Int> {
        sectionStarts[section]..<(section + 1 < sectionStarts.count ? sectionStarts[section + 1] : count)
    }

    func indexPath(forOffset offset: Int, starts: [Int]) -> IndexPath {
        // The last section starting at or before `offset`.
        var low = 0, high = starts.count
        while high - low > 1 {
            let middle = (low + high) / 2
            if starts[middle] <= offset { low = middle } else { high = middle }
        }
        return .section(low, item: offset - (starts.isEmpty ? 0 : starts[low]))
    }

    /// The section name of an object: its section key path's value as text.
    ///
    /// - Throws: the evaluator's error when the key path cannot be evaluated on the object.
    func sectionName(of object: ManagedObject) throws -> String {
        guard let sectionNameKeyPath else { return "" }
        return Self.sectionName(for: try evaluator.value(of: .keyPath(sectionNameKeyPath), on: object).storeValue)
    }

    /// Records that a change could not be followed: ``lastError``, the delegate, the log.
    func failedToFollowChanges(_ error: any Error) {
        lastError = error
        Self.logger.error("fetched results controller of \(entity.name) could not follow a change: \(error)")
        delegate?.controller(self, didFailWith: error)
    }

    /// Records that a change was followed without an error.
    func followedChanges() { lastError = nil }

    private static var logger: Logger { Logger(label: "stowage.observation") }

    static func sectionName(for value: StoreValue) -> String {
        switch value {
        case .null: ""
        case .string(let text): text
        case .integer(let number): String(number)
        case .double(let number): String(number)
        case .float(let number): String(number)
        case .decimal(let number): "\(number)"
        case .boolean(let flag): flag ? "1" : "0"
        case .date(let date): "\(date)"
        case .uuid(let uuid): uuid.uuidString
        case .uri(let url): url.absoluteString
        case .objectID(let id): id.uriRepresentation.absoluteString
        default: "\(value)"
        }
    }

    /// The sections of `objects`: each run of equal section names.
    func sections(of objects: [ManagedObject]) throws -> (names: [String], starts: [Int]) {
        guard sectionNameKeyPath != nil else { return ([""], [0]) }   // one section, even empty, as in Core Data
        var names: [String] = [], starts: [Int] = [], seen: Set<String> = []
        for (offset, object) in objects.enumerated() {
            let name = try sectionName(of: object)
            if name == names.last { continue }
            guard seen.insert(name).inserted else {
                throw FetchError(.invalidArgument, "section '\(name)' comes in more than one run: sort by \(sectionNameKeyPath ?? "") first")
            }
            names.append(name)
            starts.append(offset)
        }
        return (names, starts)
    }
}
