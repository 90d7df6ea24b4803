import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The throwaway PostgreSQL cluster behind `STOWAGE_POSTGRES_URL` (`scripts/postgres-cluster`;
/// `.ci/run` starts one), for tests that restart the server, end its sessions or run SQL
/// beside a store. Needs no PostgreSQL code of the package, so every test target may use it.
public enum PostgresTestCluster {
    /// The environment variable holding the server's URL.
    public static let environmentKey = "STOWAGE_POSTGRES_URL"

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The server's URL, or nil when `STOWAGE_POSTGRES_URL` is unset or empty.
    public static var url: URL? {
        ProcessInfo.processInfo.environment[environmentKey].flatMap { $0.isEmpty ? nil : URL(string: $0) }
    }

    /// The cluster's directory (the URL's `host` setting, its socket directory), or nil when the
    /// URL names no cluster of `scripts/postgres-cluster` on this machine.
    public static var directory: String? {
        guard let url, let host = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first(where: { $0.name == "host" })?.value,
            FileManager.default.fileExists(atPath: host + "/data")
        else { return nil }
        return host
    }

    static func requiredDirectory() throws -> String {
        guard let directory else {
            throw PostgresClusterFailure(command: "finding the cluster", output: "\(environmentKey) names no cluster of scripts/postgres-cluster on this machine")
        }
        return directory
    }

    /// `pg_ctl restart` with shutdown mode `fast` or `immediate`.
    public static func restart(_ mode: String) throws {
        try shell([repository.appendingPathComponent("scripts/postgres-cluster").path, "restart", try requiredDirectory(), mode])
    }

    /// Runs SQL through `psql` on a session of its own; returns what it printed (unaligned, tuples only).
    @discardableResult
    public static func sql(_ statement: String) throws -> String {
        try shell(psql + ["-tAX", "-c", statement]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Ends every session whose `application_name` is `name` (`pg_terminate_backend`); returns how many.
    @discardableResult
    public static func terminate(applicationName name: String) throws -> Int {
        Int(try sql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '\(name)'")) ?? 0
    }

    /// A `psql` session kept open: each ``PsqlSession/send(_:)`` runs as it arrives.
    public static func openSession() throws -> PsqlSession {
        guard let pipe = popen(command(try psql + ["-qX"]) + " >/dev/null", "w") else { throw POSIXError(.EIO) }
        return PsqlSession(pipe: pipe)
    }

    private static var psql: [String] {
        get throws { ["psql", "-h", try requiredDirectory(), "-U", "stowage", "-d", "postgres", "-v", "ON_ERROR_STOP=1"] }
    }

    /// The arguments as one shell command, each quoted.
    private static func command(_ arguments: [String]) -> String {
        arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
    }

    /// Runs a command through `popen` (Foundation's `Process.waitUntilExit` can miss the exit of a
    /// child whose grandchild — the restarted server — lives on) and returns what it printed.
    @discardableResult
    private static func shell(_ arguments: [String]) throws -> String {
        guard let pipe = popen(command(arguments) + " 2>&1", "r") else { throw POSIXError(.EIO) }
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, pipe)
            if count <= 0 { break }
            output.append(contentsOf: buffer[0..<count])
        }
        let status = pclose(pipe)
        let printed = String(decoding: output, as: UTF8.self)
        guard status == 0 else { throw PostgresClusterFailure(command: arguments.joined(separator: " "), output: printed) }
        return printed
    }
}

/// A `psql` process reading statements from a pipe.
public final class PsqlSession {
    private let pipe: UnsafeMutablePointer<FILE>

    init(pipe: UnsafeMutablePointer<FILE>) { self.pipe = pipe }

    /// Sends statements; they run as psql reads them.
    public func send(_ statements: String) {
        fputs(statements, pipe)
        fflush(pipe)
    }

    /// Ends the session (psql exits at the end of its input).
    public func close() { pclose(pipe) }
}

/// A cluster command that failed, with what it printed.
public struct PostgresClusterFailure: Error, CustomStringConvertible {
    public let command: String
    public let output: String
    public init(command: String, output: String) {
        self.command = command
        self.output = output
    }
    public var description: String { "\(command) failed: \(output)" }
}
