import Foundation

/// A value shared with a notification block or another thread.
public final class LockedBox<Value>: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var stored: Value
    public init(_ value: Value) { stored = value }
    public var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
    /// Changes the value in one step under the lock (`box.value += 1` reads and writes in two).
    public func mutate<R>(_ body: (inout Value) -> R) -> R { lock.withLock { body(&stored) } }
}
