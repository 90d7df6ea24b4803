/// One comparison: our code and its baseline doing the same job.
///
/// Each side runs its own untimed setup and returns the time of the measured part only, so
/// setup (building data, creating an empty store) never counts.
struct Workload {
    /// Stable once published: figures are compared across versions by this name.
    let name: String
    /// Names the baseline, e.g. "grdb-memory".
    let baselineName: String
    let ours: () throws -> Duration
    let baseline: () throws -> Duration
}

extension Duration {
    var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) / 1e18
    }
}

/// Times `body` with the monotonic clock.
func measure(_ body: () throws -> Void) rethrows -> Duration {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    return clock.now - start
}

/// Keeps a computed value alive so the optimizer cannot drop the work that made it.
@inline(never)
func consume<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// A workload that did not do the job it claims to time.
enum BenchmarkError: Error, CustomStringConvertible {
    case wrongResultCount(found: Int, expected: Int)

    var description: String {
        switch self {
        case .wrongResultCount(let found, let expected): "fetched \(found) objects, expected \(expected)"
        }
    }
}
