#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import PostgresBackend
import StoreCore
import StoreTestSupport
import XCTest

/// The PostgreSQL server the tests use: the URL in `STOWAGE_POSTGRES_URL` (`.ci/run` starts a
/// throwaway cluster with `scripts/postgres-cluster` and sets it). Without it the tests skip.
enum PostgresTestServer {
    static var url: URL? { PostgresTestCluster.url }

    /// The server's URL, or a skip naming how to get one.
    static func requireURL() throws -> URL {
        guard let url else {
            throw XCTSkip("PostgreSQL tests skipped: set \(PostgresTestCluster.environmentKey) (for example `export \(PostgresTestCluster.environmentKey)=$(scripts/postgres-cluster start /tmp/stowage-pg)`) or run .ci/run")
        }
        return url
    }

    /// The directory of the cluster behind the URL (`PostgresTestCluster`), or a skip when the URL
    /// names no cluster this machine can restart.
    @discardableResult
    static func requireCluster() throws -> String {
        let url = try requireURL()
        guard let directory = PostgresTestCluster.directory else {
            throw XCTSkip("the server at \(url) is not a cluster of scripts/postgres-cluster on this machine, so it cannot be restarted")
        }
        return directory
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
#endif
