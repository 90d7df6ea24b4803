import Foundation

/// When a fetch left its row beside a fault, for the context's ``ManagedObjectContext/stalenessInterval``,
/// in four bytes: every object holds one (see ``ManagedObject/LifecycleState``).
///
/// It is the time since the process first asked (system uptime), in seconds, as a `Float`
/// rounded down, so that a row never looks younger than it is: at worst a row is read again a
/// little early — by a millisecond in the first hours of a process, by a quarter of a second
/// after a month — and never kept past its interval.
///
/// For example (inside StoreCore):
///
/// ```swift
/// fault.committedSnapshotTime = .now()
/// fault.committedSnapshotTime.isWithin(stalenessInterval)   // true until the interval has passed
/// ```
struct FaultRowTime {
    private let seconds: Float

    private init(seconds: Float) { self.seconds = seconds }

    /// Long ago: a row fetched while the context kept no staleness interval is as old as can be
    /// when one is set later.
    // Computed, not a stored `static let`: every new object takes it, and a stored one is a
    // call to `swift_once` each time.
    static var distantPast: FaultRowTime { FaultRowTime(seconds: -.infinity) }

    /// The time now.
    static func now() -> FaultRowTime {
        let elapsed = secondsSinceOrigin()
        var seconds = Float(elapsed)
        if Double(seconds) > elapsed { seconds = seconds.nextDown }
        return FaultRowTime(seconds: Swift.max(0, seconds))
    }

    /// Whether no more than `interval` seconds have passed since this time.
    func isWithin(_ interval: TimeInterval) -> Bool {
        Self.secondsSinceOrigin() - Double(seconds) <= interval
    }

    private static let origin = ProcessInfo.processInfo.systemUptime

    private static func secondsSinceOrigin() -> Double {
        ProcessInfo.processInfo.systemUptime - origin
    }
}
