#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// The TLS listener of the cluster behind `STOWAGE_POSTGRES_URL`, when
/// `scripts/postgres-cluster start DIR --tls` started it (`.ci/run` does): 127.0.0.1 on the port in
/// `DIR/tls/port`, TLS only, with a certificate for `localhost` signed by `DIR/tls/ca.crt`;
/// `DIR/tls/other-ca.crt` is an unrelated CA.
struct PostgresTLSCluster {
    let directory: String
    let port: Int

    /// The cluster's CA, which signed the server's certificate.
    var rootCertificate: String { directory + "/tls/ca.crt" }
    /// A CA that signed nothing the server has.
    var unrelatedRootCertificate: String { directory + "/tls/other-ca.crt" }

    /// The cluster's TLS listener, or a skip saying how to start one.
    static func require() throws -> PostgresTLSCluster {
        let directory = try PostgresTestServer.requireCluster()
        let portFile = directory + "/tls/port"
        guard FileManager.default.fileExists(atPath: portFile) else {
            throw XCTSkip("PostgreSQL tests skipped: the cluster in \(directory) has no TLS listener (start it with `scripts/postgres-cluster start DIR --tls`, as .ci/run does)")
        }
        let text = try String(contentsOfFile: portFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let port = Int(text) else { throw PostgresClusterFailure(command: "reading \(portFile)", output: text) }
        return PostgresTLSCluster(directory: directory, port: port)
    }

    /// The listener's URL as `host` names it (`localhost`, which the certificate names, or
    /// `127.0.0.1`, which it does not), with `settings` as query items.
    func url(host: String, _ settings: [String: String]) throws -> URL {
        var components = URLComponents()
        components.scheme = "postgres"
        components.user = "stowage"
        components.host = host
        components.port = port
        components.path = "/postgres"
        components.queryItems = settings.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        return try XCTUnwrap(components.url)
    }

    /// How many of the sessions named `stowage <schema>` (the store's pool) the server sees, and
    /// how many of them are TLS sessions, as `pg_stat_ssl` tells (asked over the Unix socket).
    static func sessions(schema: String) throws -> (all: Int, overTLS: Int) {
        let answer = try PostgresTestCluster.sql("""
            SELECT count(*) || ' ' || count(*) FILTER (WHERE s.ssl AND s.version IS NOT NULL)
            FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid)
            WHERE a.application_name = 'stowage \(schema)' AND a.client_addr = '127.0.0.1'
            """)
        let counts = answer.split(separator: " ").compactMap { Int($0) }
        guard counts.count == 2 else { throw PostgresClusterFailure(command: "pg_stat_ssl", output: answer) }
        return (counts[0], counts[1])
    }
}
#endif
