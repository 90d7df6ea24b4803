import Foundation

/// The PostgreSQL server the `postgres.*` workloads use: the one `STOWAGE_POSTGRES_URL` names, or
/// else a throwaway cluster started on first use with the project's `scripts/postgres-cluster`
/// (as `.ci/run` starts one) and stopped when the program ends. Child runs for peak memory
/// inherit the URL.
enum PostgresServer {
    private static let state = Mutex()

    /// The server's URL, starting a cluster the first time when none is given.
    static func url() throws -> URL {
        try state.withLock { started in
            if let text = ProcessInfo.processInfo.environment["STOWAGE_POSTGRES_URL"], let url = URL(string: text) { return url }
            let directory = "/tmp/stowage-bench-pg-\(ProcessInfo.processInfo.processIdentifier)"
            let output = try run(["start", directory])
            guard let url = URL(string: output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw BenchmarkError.failed("scripts/postgres-cluster printed no URL: \(output)")
            }
            setenv("STOWAGE_POSTGRES_URL", url.absoluteString, 1)
            started = directory
            return url
        }
    }

    static func stopIfStarted() {
        state.withLock { started in
            guard let directory = started else { return }
            _ = try? run(["stop", directory])
            started = nil
        }
    }

    /// A URL for a store (or raw tables) in a schema of its own.
    static func url(schema: String) throws -> URL {
        var components = URLComponents(url: try url(), resolvingAgainstBaseURL: false) ?? URLComponents()
        components.queryItems = (components.queryItems ?? []).filter { $0.name != "schema" } + [URLQueryItem(name: "schema", value: schema)]
        guard let url = components.url else { throw BenchmarkError.failed("bad server URL") }
        return url
    }

    private static func run(_ arguments: [String]) throws -> String {
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/postgres-cluster")
        let process = Process()
        process.executableURL = script
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        // Reaped here: Foundation's `waitUntilExit` was seen never to return for this script
        // (whose server keeps running after it exits) on Linux.
        var status: Int32 = 0
        let reaped = waitpid(process.processIdentifier, &status, 0)
        let succeeded = reaped == process.processIdentifier ? (status & 0x7f) == 0 && (status >> 8) & 0xff == 0 : !process.isRunning && process.terminationStatus == 0
        guard succeeded else { throw BenchmarkError.failed("scripts/postgres-cluster \(arguments[0]) failed") }
        return String(decoding: data, as: UTF8.self)
    }

    /// The started cluster's directory, behind a lock.
    private final class Mutex: @unchecked Sendable {
        // @unchecked: `value` is only touched while `lock` is held.
        private let lock = NSLock()
        private var value: String?
        func withLock<T>(_ body: (inout String?) throws -> T) rethrows -> T {
            lock.lock()
            defer { lock.unlock() }
            return try body(&value)
        }
    }
}
