import Foundation

/// A fetch that runs on its context's queue while the caller goes on, reporting progress and
/// stopping when cancelled: Core Data's `NSAsynchronousFetchRequest`.
///
/// Object results are found first (their IDs, one query) and then loaded a batch at a time;
/// ``AsynchronousFetchResult/progress`` counts the objects loaded, and cancelling stops between
/// batches. The completion block runs on the context's queue with the finished result.
///
/// For example:
///
/// ```swift
/// let request = AsynchronousFetchRequest(fetchRequest: FetchRequest<Post>()) { result in
///     if let posts = result.finalResult { show(posts) }
/// }
/// let running = context.execute(request)
/// running.progress.fractionCompleted      // 0…1 as it goes
/// running.cancel()                        // stops between batches; the block sees an error
/// ```
public struct AsynchronousFetchRequest<Result: FetchRequestResult>: Sendable {
    /// The fetch to run.
    public var fetchRequest: FetchRequest<Result>
    /// Called on the context's queue when the fetch finished, failed or was cancelled.
    public var completionBlock: (@Sendable (AsynchronousFetchResult<Result>) -> Void)?
    /// How many objects are loaded between two progress updates (and cancellation checks).
    public var batchSize = 500

    /// Wraps `fetchRequest` to run asynchronously, calling `completionBlock` (if any) on the
    /// context's queue when it ends, as Core Data's
    /// `NSAsynchronousFetchRequest(fetchRequest:completionBlock:)`.
    public init(fetchRequest: FetchRequest<Result>, completionBlock: (@Sendable (AsynchronousFetchResult<Result>) -> Void)? = nil) {
        self.fetchRequest = fetchRequest
        self.completionBlock = completionBlock
    }
}

/// A running ``AsynchronousFetchRequest``: its progress, and once finished its results or error.
/// Read ``finalResult`` on the context's queue (its objects belong to the context).
///
/// For example:
///
/// ```swift
/// let request = AsynchronousFetchRequest(fetchRequest: FetchRequest<Post>()) { result in
///     if let posts = result.finalResult { print(posts.count, "posts") }
///     else if let error = result.operationError { print("stopped:", error) }
/// }
/// let running = context.execute(request)
/// print(running.progress.completedUnitCount)    // objects loaded so far
/// ```
public final class AsynchronousFetchResult<Result: FetchRequestResult>: @unchecked Sendable {
    // @unchecked: `finalResult` and `operationError` are written once, on the context's queue,
    // before the completion block runs there.
    /// Objects loaded out of the total; cancel it (or call ``cancel()``) to stop the fetch.
    public let progress: Progress
    /// The results, once the fetch finished.
    public internal(set) var finalResult: [Result]?
    /// Why the fetch did not finish: its error, or ``FetchError`` (`cancelled`) after a cancel.
    public internal(set) var operationError: (any Error)?

    init() {
        progress = Progress(totalUnitCount: -1)
    }

    /// Stops the fetch at the next batch.
    public func cancel() { progress.cancel() }
}

extension ManagedObjectContext {
    /// Starts an asynchronous fetch on the context's queue and returns its running result at once.
    public func execute<Result: FetchRequestResult & SendableMetatype>(_ request: AsynchronousFetchRequest<Result>) -> AsynchronousFetchResult<Result> {
        let running = AsynchronousFetchResult<Result>()
        perform { [self] in
            do {
                running.finalResult = try fetchInBatches(request, progress: running.progress)
            } catch {
                running.operationError = error
            }
            request.completionBlock?(running)
        }
        return running
    }

    private func fetchInBatches<Result: FetchRequestResult>(_ request: AsynchronousFetchRequest<Result>, progress: Progress) throws -> [Result] {
        guard request.fetchRequest.resultType == .managedObject else {
            progress.totalUnitCount = 1
            let results = try fetch(request.fetchRequest)
            progress.completedUnitCount = 1
            return results
        }
        var idRequest = FetchRequest<ManagedObjectID>(entityName: request.fetchRequest.entityName)
        idRequest.storeRequest = request.fetchRequest.storeRequest
        idRequest.resultType = .managedObjectID
        let ids = try fetch(idRequest)
        progress.totalUnitCount = Int64(ids.count)
        var results: [Result] = []
        results.reserveCapacity(ids.count)
        let size = max(1, request.batchSize)
        for start in stride(from: 0, to: ids.count, by: size) {
            if progress.isCancelled { throw FetchError(.cancelled, "the asynchronous fetch was cancelled after \(results.count) of \(ids.count) objects") }
            results += materialize(Array(ids[start..<min(start + size, ids.count)])).compactMap { $0 as? Result }
            progress.completedUnitCount = Int64(results.count)
        }
        return results
    }
}
