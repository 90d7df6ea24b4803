#if STOWAGE_SANITIZER_LOCKS
import Foundation

/// Only in the ThreadSanitizer build, which `.ci/run` makes with
/// `--sanitize=thread -Xswiftc -DSTOWAGE_SANITIZER_LOCKS` (docs/reliability.md, "Races"):
/// a `Mutex` built on `NSLock` (a pthread mutex, which ThreadSanitizer sees), shadowing
/// Synchronization's within StoreCore and the modules of this package that import it.
/// Synchronization's `Mutex` waits on a futex that ThreadSanitizer cannot see, so it reports
/// correctly locked accesses as races; with this one it sees the lock's ordering, and still
/// reports every access made without it. Normal builds never compile this file.
///
/// For example (the same shape as Synchronization's):
///
/// ```swift
/// let counter = Mutex(0)
/// counter.withLock { $0 += 1 }
/// ```
package final class Mutex<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ initialValue: consuming Value) { value = initialValue }

    package func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
#endif
