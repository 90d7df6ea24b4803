/// One comparison: our code and its baselines doing the same job.
///
/// Each side runs its own untimed setup and returns the time of the measured part only, so
/// setup (building data, creating an empty store) never counts.
///
/// Most workloads have one baseline. A workload with several (raw SQLite *and* GRDB, say) runs
/// all of them in the same rounds as ours and reports one row per baseline: the first row
/// carries the workload's own name, each further one `<name>.vs-<baseline>`.
struct Workload {
    /// One side of a comparison: a name and the job, which returns the time of its timed part.
    struct Side {
        let name: String
        let run: () throws -> Duration
    }

    /// Stable once published: figures are compared across versions by this name.
    let name: String
    let ours: () throws -> Duration
    /// At least one; the first is the primary baseline.
    let baselines: [Side]

    init(name: String, baselineName: String, ours: @escaping () throws -> Duration, baseline: @escaping () throws -> Duration) {
        self.init(name: name, ours: ours, baselines: [Side(name: baselineName, run: baseline)])
    }

    init(name: String, ours: @escaping () throws -> Duration, baselines: [Side]) {
        precondition(!baselines.isEmpty, "a workload needs a baseline")
        self.name = name
        self.ours = ours
        self.baselines = baselines
    }

    /// Names the primary baseline, e.g. "grdb-memory".
    var baselineName: String { baselines[0].name }

    /// The published name of the row comparing ours with baseline `index`.
    func rowName(baseline index: Int) -> String {
        index == 0 ? name : "\(name).vs-\(baselines[index].name)"
    }

    /// Every published row name (what `--list` prints and `--filter` matches).
    var rowNames: [String] { baselines.indices.map(rowName) }
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
    /// The work ran but produced other values than the data holds (a checksum mismatch).
    case wrongResult(String)
    /// A baseline's own call failed (a SQLite result code, say).
    case failed(String)

    var description: String {
        switch self {
        case .wrongResultCount(let found, let expected): "fetched \(found) objects, expected \(expected)"
        case .wrongResult(let message): "wrong result: \(message)"
        case .failed(let message): message
        }
    }
}
