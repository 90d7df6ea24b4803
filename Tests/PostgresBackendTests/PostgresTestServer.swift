#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import PostgresBackend
import StoreCore
import StoreTestSupport
import XCTest

/// The PostgreSQL server the tests use: the URL in `STOWAGE_POSTGRES_URL` (`.ci/run` starts a
/// throwaway cluster with `scripts/postgres-cluster` and sets it). Without it the tests skip.
enum PostgresTestServer {
    static let environmentKey = "STOWAGE_POSTGRES_URL"

    static var url: URL? {
        ProcessInfo.processInfo.environment[environmentKey].flatMap { $0.isEmpty ? nil : URL(string: $0) }
    }

    /// The server's URL, or a skip naming how to get one.
    static func requireURL() throws -> URL {
        guard let url else {
            throw XCTSkip("PostgreSQL tests skipped: set \(environmentKey) (for example `export \(environmentKey)=$(scripts/postgres-cluster start /tmp/stowage-pg)`) or run .ci/run")
        }
        return url
    }

    /// A description of a store in a schema of its own.
    static func description(schema: String) throws -> PersistentStoreDescription {
        var description = PersistentStoreDescription(url: try requireURL())
        description.setOption(.string(schema), forKey: .postgresSchema)
        return description
    }

    /// A schema name no other test uses.
    static func freshSchema(_ prefix: String = "t") -> String {
        "\(prefix)_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
    }

    /// The shared backend suite's kit, one schema per store it makes.
    static func kit() throws -> StoreTestKit {
        let url = try requireURL()
        PostgresStore.register()
        // FUNCTION() and CAST() of stored values (and `length:`, a FUNCTION selector) have no
        // server-side form (docs/postgres.md).
        return StoreTestKit("postgres", mayRefuseQuery: { $0.contains("FUNCTION(") || $0.contains("CAST(") || $0.contains("length:(") }) { name, _ in
            var description = PersistentStoreDescription(url: url)
            description.setOption(.string(freshSchema(String(name.prefix(20)).lowercased().filter { $0.isLetter || $0.isNumber || $0 == "_" })), forKey: .postgresSchema)
            return description
        }
    }
}

/// The throwaway cluster behind `STOWAGE_POSTGRES_URL` (`scripts/postgres-cluster`), for tests
/// that restart the server or end its sessions. Skips when the URL names no cluster directory.
enum PostgresTestCluster {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The cluster's directory: the URL's `host` setting (its socket directory).
    static func directory() throws -> String {
        let url = try PostgresTestServer.requireURL()
        guard let host = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first(where: { $0.name == "host" })?.value,
            FileManager.default.fileExists(atPath: host + "/data")
        else { throw XCTSkip("the server at \(url) is not a cluster of scripts/postgres-cluster on this machine, so it cannot be restarted") }
        return host
    }

    /// `pg_ctl restart` with shutdown mode `fast` or `immediate`.
    static func restart(_ mode: String) throws {
        try shell([repository.appendingPathComponent("scripts/postgres-cluster").path, "restart", try directory(), mode])
    }

    /// Runs SQL through `psql` on a session of its own; returns what it printed (unaligned, tuples only).
    @discardableResult
    static func sql(_ statement: String) throws -> String {
        try shell(psql + ["-tAX", "-c", statement]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Ends every session whose `application_name` is `name` (`pg_terminate_backend`); returns how many.
    @discardableResult
    static func terminate(applicationName name: String) throws -> Int {
        Int(try sql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '\(name)'")) ?? 0
    }

    /// A `psql` session kept open: each ``PsqlSession/send(_:)`` runs as it arrives.
    static func openSession() throws -> PsqlSession {
        guard let pipe = popen(command(try psql + ["-qX"]) + " >/dev/null", "w") else { throw POSIXError(.EIO) }
        return PsqlSession(pipe: pipe)
    }

    private static var psql: [String] {
        get throws { ["psql", "-h", try directory(), "-U", "stowage", "-d", "postgres", "-v", "ON_ERROR_STOP=1"] }
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
final class PsqlSession {
    private let pipe: UnsafeMutablePointer<FILE>

    init(pipe: UnsafeMutablePointer<FILE>) { self.pipe = pipe }

    func send(_ statements: String) {
        fputs(statements, pipe)
        fflush(pipe)
    }

    /// Ends the session (psql exits at the end of its input).
    func close() { pclose(pipe) }
}

struct PostgresClusterFailure: Error, CustomStringConvertible {
    let command: String
    let output: String
    var description: String { "\(command) failed: \(output)" }
}
#endif
