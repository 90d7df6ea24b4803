import Foundation
import StoreCore

extension SyncEngine {
    /// What an event did, as in `NSPersistentCloudKitContainer.EventType`.
    ///
    /// For example:
    ///
    /// ```swift
    /// for await event in engine.events() where event.type == .import && event.succeeded { refreshUI() }
    /// ```
    public enum EventType: Int, Sendable, Hashable, CustomStringConvertible {
        /// Checking both stores and creating this client's state (first sync, or a resync).
        case setup = 0
        /// Pulling the server's changes into the local store.
        case `import` = 1
        /// Pushing the local store's changes to the server.
        case export = 2

        public var description: String {
            switch self {
            case .setup: "setup"
            case .import: "import"
            case .export: "export"
            }
        }
    }

    /// One step of a sync, posted as ``SyncEngine/eventChangedNotification`` when it starts and
    /// again when it ends — Core Data's `NSPersistentCloudKitContainer.Event`.
    ///
    /// For example:
    ///
    /// ```swift
    /// for await event in engine.events() where event.endDate != nil {
    ///     print(event.type, event.succeeded, event.objectCount)
    /// }
    /// ```
    public struct Event: Sendable, CustomStringConvertible {
        /// Identifies the event; the start and end notifications of one step share it.
        public let identifier: UUID
        /// The local store's identifier.
        public let storeIdentifier: String
        /// Setup, import or export.
        public let type: EventType
        /// When the step started.
        public let startDate: Date
        /// When it ended; `nil` in the notification posted at its start.
        public let endDate: Date?
        /// Whether it completed (false while running, and when it failed).
        public let succeeded: Bool
        /// Why it failed.
        public let error: (any Error)?
        /// Objects inserted, updated and deleted by the step (on the server for an export, in the
        /// local store for an import).
        public let changes: SyncChangeCounts

        /// The number of objects the step changed.
        public var objectCount: Int { changes.total }

        public var description: String {
            let state = endDate == nil ? "started" : succeeded ? "succeeded" : "failed: \(error.map { "\($0)" } ?? "")"
            return "\(type) \(state) \(changes)"
        }
    }

    /// Posted (object: the engine) when a sync step starts and when it ends; the event is under
    /// ``eventNotificationUserInfoKey`` — Core Data's `eventChangedNotification`.
    public static let eventChangedNotification = Notification.Name("StowageSyncEngineEventChanged")
    /// The user-info key of the ``Event`` in ``eventChangedNotification``.
    public static let eventNotificationUserInfoKey = "event"
}

/// How many objects a sync step inserted, updated and deleted.
///
/// For example:
///
/// ```swift
/// let summary = try await engine.sync()
/// print("pushed \(summary.pushed), pulled \(summary.pulled)")
/// ```
public struct SyncChangeCounts: Sendable, Hashable, CustomStringConvertible {
    /// Objects inserted.
    public var inserted = 0
    /// Objects updated.
    public var updated = 0
    /// Objects deleted.
    public var deleted = 0

    /// Creates counts.
    public init(inserted: Int = 0, updated: Int = 0, deleted: Int = 0) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    /// All objects changed.
    public var total: Int { inserted + updated + deleted }

    public var description: String { "\(inserted) inserted, \(updated) updated, \(deleted) deleted" }
}

/// What one ``SyncEngine/sync()`` moved.
///
/// For example:
///
/// ```swift
/// let summary = try await engine.sync()
/// if summary.conflicts > 0 { print("\(summary.conflicts) attributes changed on both sides") }
/// ```
public struct SyncSummary: Sendable, Hashable, CustomStringConvertible {
    /// Objects written to the server.
    public var pushed = SyncChangeCounts()
    /// Objects written to the local store.
    public var pulled = SyncChangeCounts()
    /// Local transactions pushed (each one server transaction).
    public var pushedTransactions = 0
    /// Server transactions pulled (all in one local save).
    public var pulledTransactions = 0
    /// Attributes changed on both sides, resolved by the conflict rule.
    public var conflicts = 0
    /// Whether the pull read every object on the server rather than its history (a client's
    /// first sync, and ``SyncEngine/resynchronize()``).
    public var pulledEverything = false

    /// An empty summary: nothing moved.
    public init() {}

    public var description: String {
        "pushed \(pushedTransactions) transactions (\(pushed)); pulled \(pulledEverything ? "every object" : "\(pulledTransactions) transactions") (\(pulled)); \(conflicts) conflicts"
    }
}
