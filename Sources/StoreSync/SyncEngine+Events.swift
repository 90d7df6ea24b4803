import Foundation
import StoreCore

extension SyncEngine {
    /// The engine's events from now on: each step's start and end (an async sequence of the
    /// ``eventChangedNotification``s).
    ///
    /// For example:
    ///
    /// ```swift
    /// Task {
    ///     for await event in engine.events() where !event.succeeded && event.endDate != nil {
    ///         print("sync failed:", event.error.map { "\($0)" } ?? "")
    ///     }
    /// }
    /// ```
    public func events() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingNewest(1000))
        let id = UUID()
        streams.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.streams.withLock { $0.removeValue(forKey: id) }
        }
        return stream
    }

    func post(_ event: Event) {
        for continuation in streams.withLock({ Array($0.values) }) { continuation.yield(event) }
        NotificationCenter.default.post(name: Self.eventChangedNotification, object: self, userInfo: [Self.eventNotificationUserInfoKey: event])
    }
}
