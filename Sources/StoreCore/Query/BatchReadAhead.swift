import Foundation

/// The rows a batched fetch read before it needed them. While ``FetchedResults`` is read batch
/// after batch, one store request brings the rows of several batches (for PostgreSQL, one round
/// trip instead of one per batch), and the next batches take their rows from here. Objects are
/// still made one batch at a time; the rows waiting cost their snapshots: at most
/// ``maximumRows`` held, and as many again for each read under way (a store that reads ahead,
/// ``SnapshotReadingAhead``, reads the next spans while the caller works: at most
/// ``readsUnderWay`` of them).
///
/// Rows read ahead are used only as long as they are what the store would answer: while
/// nothing was written through the coordinator since they were read (a save of any of its
/// contexts, a batch request, a commit elsewhere that a store with remote change notifications
/// announced — ``PersistentStoreCoordinator/writeCount``) and, with a
/// ``ManagedObjectContext/stalenessInterval`` of zero or more, while they are no older than it —
/// the rule a fault holding the row it was fetched with follows. Otherwise the batch is read
/// again, as if nothing had been read ahead. A child context (whose parent context cannot tell
/// when its objects change) reads one batch at a time.
///
/// For example (inside ``FetchedBatches``):
///
/// ```swift
/// if let rows = readAhead.rows(for: 200..<400, mark: mark, stalenessInterval: -1) { … }
/// let span = readAhead.span(forBatchAt: 200, batchSize: 200)   // grows while batches come in order
/// ```
struct BatchReadAhead {
    /// The most rows one request reads ahead (a few hundred kilobytes of snapshots).
    static let maximumRows = 2_048

    /// What the rows were read from, and its ``ObjectStoreParent/readAheadMark`` then.
    struct Mark {
        let parent: AnyObject
        let value: Int

        func matches(_ other: Mark?) -> Bool {
            guard let other else { return false }
            return other.parent === parent && other.value == value
        }
    }

    /// The position of `rows[0]` in the results.
    private var start = 0
    /// The row of each position from `start`, `nil` where the store held none or the row was
    /// taken.
    private var rows: [StoreSnapshot?] = []
    /// The positions whose rows were taken (``takeRows(for:mark:stalenessInterval:)``): a batch
    /// loaded again is read again.
    private var taken: [Range<Int>] = []
    private var mark: Mark?
    private var readTime: TimeInterval = 0
    /// How many batches the next request reads: doubles while batches are loaded in order.
    private var batches = 1
    /// The first position of the batch loaded last.
    private var lastBatchStart = Int.min
    /// Reads the store started for the positions right after `rows`, one after the other, oldest
    /// first (``SnapshotReadingAhead``): at most ``readsUnderWay``.
    private var pending: [PendingRead] = []

    /// How many reads a batched fetch keeps under way by default: one — while the caller works
    /// on one span of rows, the store reads the next. (Each costs SQLite a reader connection's
    /// page cache and a span of snapshots: `sqlite.batched-iterate-1m` peaked at 42 MB with two.
    /// PostgreSQL keeps two, ``SnapshotReadingAhead/readsUnderWay``.)
    static let maximumPendingReads = 1

    /// How many reads this fetch keeps under way: ``maximumPendingReads`` unless its store
    /// keeps more (``SnapshotReadingAhead/readsUnderWay``).
    var readsUnderWay = Self.maximumPendingReads

    /// A read a store started for the positions from `start` (`ids`), when the parent's mark was `mark`.
    private struct PendingRead {
        let start: Int
        let count: Int
        let snapshots: PendingSnapshots
        let mark: Mark
        let time: TimeInterval
    }

    /// The rows of `range`, moved out, if they were read ahead, were not taken before and may
    /// still be used (see the type's rules). Moved, not copied: a copy cost a retain of each of
    /// a row's references, cold in this thread (the reading thread wrote them), and the release
    /// of the copy left behind — a fifth of a batched iteration's main thread.
    mutating func takeRows(for range: Range<Int>, mark current: Mark?, stalenessInterval: TimeInterval) -> [StoreSnapshot?]? {
        guard range.lowerBound >= start, range.upperBound <= start + rows.count, let mark, mark.matches(current),
            !taken.contains(where: { $0.overlaps(range) })
        else { return nil }
        if stalenessInterval >= 0, ProcessInfo.processInfo.systemUptime - readTime > stalenessInterval { return nil }
        taken.append(range)
        var moved: [StoreSnapshot?] = []
        moved.reserveCapacity(range.count)
        for position in (range.lowerBound - start)..<(range.upperBound - start) { moved.append(rows[position].take()) }
        return moved
    }

    /// Whether rows of `range` were read ahead and taken already.
    func holdsTakenRows(of range: Range<Int>) -> Bool {
        taken.contains { $0.overlaps(range) }
    }

    /// Notes that the batch at `batchStart` is being loaded, and returns how many positions from
    /// it one request should read: one batch for a batch out of order, twice as many batches as
    /// last time (at most ``maximumRows`` rows) for the batch right after the last one.
    mutating func span(forBatchAt batchStart: Int, batchSize: Int) -> Int {
        batches = batchStart == lastBatchStart &+ batchSize ? Swift.min(batches * 2, Swift.max(1, Self.maximumRows / batchSize)) : 1
        lastBatchStart = batchStart
        return batches * batchSize
    }

    /// Whether the last request read as many batches as one may: then the next ones are read
    /// while the caller works (``startedReading(_:count:from:mark:)``).
    func readsFullSpan(batchSize: Int) -> Bool {
        batches > 1 && batches == Swift.max(1, Self.maximumRows / batchSize)
    }

    /// Whether another read may be started (fewer than ``readsUnderWay`` are under way).
    var mayStartReading: Bool { pending.count < readsUnderWay }

    /// The positions the next read covers: after the rows held and the reads under way, as
    /// many as the last request read.
    func nextSpan(batchSize: Int) -> Range<Int> {
        let from = pending.last.map { $0.start + $0.count } ?? start + rows.count
        return from..<(from + batches * batchSize)
    }

    /// Keeps a read the store started for `count` positions from `start`, begun when the
    /// parent's mark was `mark`.
    mutating func startedReading(_ snapshots: PendingSnapshots, count: Int, from start: Int, mark: Mark) {
        pending.append(PendingRead(start: start, count: count, snapshots: snapshots, mark: mark, time: ProcessInfo.processInfo.systemUptime))
    }

    /// Waits for the oldest read under way when it starts at `batchStart` and may still be used
    /// (the type's rules, its age counted from when it started): its rows become the rows held,
    /// and their count is returned. `nil` when there is no such read — then every read under
    /// way is dropped — or it failed.
    mutating func finishReading(forBatchAt batchStart: Int, mark current: Mark?, stalenessInterval: TimeInterval) -> Int? {
        guard let read = pending.first else { return nil }
        guard read.start == batchStart, read.mark.matches(current),
            stalenessInterval < 0 || ProcessInfo.processInfo.systemUptime - read.time <= stalenessInterval
        else {
            pending = []
            return nil
        }
        pending.removeFirst()
        guard let placed = try? read.snapshots.wait(), placed.count == read.count else {
            // A failed read: the batch is read again when needed, which reports the store's error.
            pending = []
            return nil
        }
        start = read.start
        rows = placed
        taken = []
        mark = read.mark
        readTime = read.time
        return rows.count
    }

    /// The snapshots a store returned for `ids` (in their order, leaving out those it does not
    /// hold), placed at their IDs' positions.
    static func place(_ found: [StoreSnapshot], at ids: [ManagedObjectID]) -> [StoreSnapshot?] {
        var rows = [StoreSnapshot?](repeating: nil, count: ids.count)
        var next = 0
        for snapshot in found {
            var position = next
            while position < ids.count, ids[position] != snapshot.objectID { position += 1 }
            guard position < ids.count else {
                // Not in the order asked: placed by ID instead.
                var byID: [ManagedObjectID: StoreSnapshot] = [:]
                for snapshot in found { byID[snapshot.objectID] = snapshot }
                return ids.map { byID[$0] }
            }
            rows[position] = snapshot
            next = position + 1
        }
        return rows
    }

    /// Notes that the batch at `batchStart` was loaded from rows read ahead.
    mutating func noteLoaded(batchAt batchStart: Int) {
        lastBatchStart = batchStart
    }

    /// Keeps `rows` (one per position from `start`) for the batches after the current one.
    mutating func keep(_ rows: [StoreSnapshot?], from start: Int, mark: Mark?) {
        self.start = start
        self.rows = rows
        taken = []
        self.mark = mark
        readTime = ProcessInfo.processInfo.systemUptime
    }

    /// Lets go of every row read ahead.
    mutating func removeAll() {
        rows = []
        taken = []
        mark = nil
        pending = []
    }
}
