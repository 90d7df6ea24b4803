/// The results of a batched fetch: a random-access collection that holds only object IDs and
/// materializes one batch of objects at a time, releasing the previous batch — so iterating a
/// million objects needs memory for one batch, not a million objects.
///
/// Objects of a released batch that are still referenced elsewhere (by your code, by another
/// loaded object, or because they have unsaved changes) stay registered in the context, so
/// uniquing holds: reading the same index again gives the same object. Use it on the context's
/// queue, like the objects it returns.
///
/// For example:
///
/// ```swift
/// var request = FetchRequest<Quake>()
/// request.fetchBatchSize = 200
/// var total = 0.0
/// for quake in try context.fetchBatched(request) { total += quake.magnitude }
/// ```
///
/// Complexity: reading an element of the current batch is O(1); moving to another batch runs
/// one query for `fetchBatchSize` objects, or none when the batch's rows were read with an
/// earlier batch: read in order, one query reads the rows of several batches (up to 2,048 rows),
/// as long as nothing was saved through the coordinator since and the context's
/// `stalenessInterval` allows.
public struct FetchedResults<Result: ManagedObject>: RandomAccessCollection {
    private let storage: FetchedBatches
    /// The number of results, kept: iterating asks for ``endIndex`` at every step, and the ID
    /// list counts its keys through its storage (a retain and a release each time).
    private let resultCount: Int

    init(objectIDs: CompactObjectIDList, batchSize: Int, context: ManagedObjectContext) {
        storage = FetchedBatches(objectIDs: objectIDs, batchSize: batchSize, context: context)
        resultCount = objectIDs.count
    }

    /// The IDs of every result, in order (no object is materialized).
    public var objectIDs: [ManagedObjectID] { Array(storage.objectIDs) }

    /// Always 0.
    public var startIndex: Int { 0 }
    /// The number of results (of IDs held); no object is materialized to count them.
    public var endIndex: Int { resultCount }

    /// The object at `position`, loading its batch (one query) and releasing the previous one when the
    /// position lies outside the current batch.
    public subscript(position: Int) -> Result {
        // `fetchBatched` keeps only IDs whose objects are `Result`s (registered objects by their
        // own class, the rest by their entity's class), so the cast always succeeds.
        storage.object(at: position) as! Result
    }
}

/// The batch bookkeeping behind ``FetchedResults`` (a class, so reading an element can load
/// a batch).
final class FetchedBatches {
    /// Every result's ID, compactly: a million results take 8 MB.
    let objectIDs: CompactObjectIDList
    let batchSize: Int
    let context: ManagedObjectContext
    private var batchStart = -1
    private var batch: [ManagedObject] = []
    /// Rows of the next batches, read with an earlier one (``BatchReadAhead``).
    private var readAhead = BatchReadAhead()

    init(objectIDs: CompactObjectIDList, batchSize: Int, context: ManagedObjectContext) {
        self.objectIDs = objectIDs
        self.batchSize = max(1, batchSize)
        self.context = context
    }

    func object(at position: Int) -> ManagedObject {
        let start = position - position % batchSize
        if start != batchStart { load(from: start) }
        return batch[position - start]
    }

    private func load(from start: Int) {
        let released = batch.map(\.objectID)
        batch = []
        context.releaseUnreferencedObjects(released)
        batch = context.materializeBatch(start..<min(start + batchSize, objectIDs.count), of: objectIDs, batchSize: batchSize, readAhead: &readAhead)
        batchStart = start
    }
}
