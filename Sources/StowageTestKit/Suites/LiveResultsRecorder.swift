import Foundation
import Synchronization
import XCTest

/// Collects what an async sequence yields, on a task of its own, so a synchronous check can
/// wait for the next element (the timeout only keeps a broken store from hanging the suite).
///
/// For example:
///
/// ```swift
/// let recorder = LiveResultsRecorder(context.changes(forCountOf: request))
/// let first = try recorder.next()
/// ```
public final class LiveResultsRecorder<Element: Sendable>: Sendable {
    private let received = Mutex<[Element]>([])
    private let failure = Mutex<(any Error)?>(nil)
    private let arrivals = DispatchSemaphore(value: 0)
    private let taken = Mutex(0)
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    /// Starts reading `sequence` on a task of its own, keeping every element for `next(timeout:)`.
    public init<Sequence: AsyncSequence & Sendable>(_ sequence: Sequence) where Sequence.Element == Element {
        let started = Task { [weak self] in
            do {
                for try await element in sequence {
                    guard let self else { return }
                    self.received.withLock { $0.append(element) }
                    self.arrivals.signal()
                }
            } catch {
                self?.failure.withLock { $0 = error }
                self?.arrivals.signal()
            }
        }
        task.withLock { $0 = started }
    }

    /// The next element, waiting for it up to `timeout` seconds.
    ///
    /// - Throws: the sequence's error, or `StoreError(.io)` when nothing came in time.
    public func next(timeout: Double = 20) throws -> Element {
        guard arrivals.wait(timeout: .now() + timeout) == .success else {
            throw NSError(domain: "LiveResultsRecorder", code: 1, userInfo: [NSLocalizedDescriptionKey: "nothing was yielded within \(timeout) s"])
        }
        if let error = failure.withLock({ $0 }) { throw error }
        let index = taken.withLock { index in
            defer { index += 1 }
            return index
        }
        return received.withLock { $0[index] }
    }

    /// Everything yielded so far.
    public var all: [Element] { received.withLock { $0 } }

    /// Stops iterating.
    public func cancel() { task.withLock { $0?.cancel() } }

    deinit { task.withLock { $0?.cancel() } }
}
