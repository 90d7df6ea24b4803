/// The command line: `stowage-bench [--filter SUBSTRING] [--rounds N] [--json FILE] [--list]`,
/// or `stowage-bench --object-bytes` (the memory one fetched object costs, stage by stage).
///
/// `--child NAME [--side BASELINE]` is internal: the parent re-runs itself that way to measure
/// the peak resident memory of one side of one workload (ours, or the baseline named) in a
/// process of its own. Such a run also prints its timed part (`timed part: …`), which times a
/// side on its own.
struct Options {
    var filter: String?
    var rounds = 5
    var jsonPath: String?
    var list = false
    var skipMemory = false
    var child: String?
    /// In a child run: the baseline to run, or nil for ours.
    var childSide: String?
    /// `--object-bytes`: report the bytes per fetched object instead of timing workloads.
    var objectBytes = false
    /// Internal: the object-bytes stage this child measures.
    var objectBytesStage: String?

    static let usage = """
        usage: stowage-bench [--filter SUBSTRING] [--rounds N] [--json FILE] [--list] [--skip-memory]
               stowage-bench --object-bytes
        """

    init(arguments: [String]) throws(UsageError) {
        var rest = arguments[...]
        func value(for flag: String) throws(UsageError) -> String {
            guard let value = rest.popFirst() else { throw UsageError("\(flag) needs a value") }
            return value
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--filter": filter = try value(for: argument)
            case "--rounds":
                let text = try value(for: argument)
                guard let n = Int(text), n > 0 else { throw UsageError("--rounds wants a positive integer, got \(text)") }
                rounds = n
            case "--json": jsonPath = try value(for: argument)
            case "--list": list = true
            case "--skip-memory": skipMemory = true
            case "--child": child = try value(for: argument)
            case "--side": childSide = try value(for: argument)
            case "--object-bytes": objectBytes = true
            case "--object-bytes-stage": objectBytesStage = try value(for: argument)
            case "-h", "--help": throw UsageError(nil)
            default: throw UsageError("unknown argument \(argument)")
            }
        }
    }
}

struct UsageError: Error {
    let message: String?
    init(_ message: String?) { self.message = message }
}
