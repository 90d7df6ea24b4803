#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import PostgresBackend
import StoreCore
import StoreTestSupport
import XCTest

/// TLS against a real server: the cluster's TLS listener on 127.0.0.1 (PostgresTLSCluster), whose
/// certificate names `localhost` and is signed by the cluster's own CA. Each `sslmode` connects
/// or refuses as libpq's does, a refusal is a `StoreError` with code `serverNotTrusted` thrown
/// without retrying, and the server itself (`pg_stat_ssl`) says the store's sessions are TLS.
final class PostgresTLSTests: XCTestCase {
    /// docs/postgres.md's example ("TLS"): verify-full against the CA that signed the server's
    /// certificate, set with the description's options.
    static func loadOverVerifiedTLS(_ container: PersistentContainer, serverURL: URL, rootCertificatePath: String) throws {
        var description = PersistentStoreDescription(url: serverURL)   // postgres://app@db.example.com/blog
        description.setOption("verify-full", forKey: .postgresTLS)
        description.setOption(.string(rootCertificatePath), forKey: .postgresRootCertificate)   // the CA's PEM file
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()   // StoreError.Code.serverNotTrusted when the certificate is refused
    }

    /// A container of the blog model on `url`, not loaded yet; the connect timeout is long, so a
    /// refusal that went through the connect retries would end in `serverUnavailable` a minute later.
    private static func container(_ url: URL, schema: String, options: [PersistentStoreOption: StoreValue] = [:]) throws -> PersistentContainer {
        PostgresStore.register()
        let container = PersistentContainer(name: "Blog", managedObjectModel: try BlogModel.make())
        var description = PersistentStoreDescription(url: url)
        description.timeout = 60
        description.setOption(.string(schema), forKey: .postgresSchema)
        for (key, value) in options { description.setOption(value, forKey: key) }
        container.persistentStoreDescriptions = [description]
        return container
    }

    /// Saves a post through `container`, reads it back through a second coordinator on the same
    /// URL, checks that every session of the store's pool is a TLS session, and unloads both.
    private func checkSavesAndReadsOverTLS(_ container: PersistentContainer, schema: String) throws {
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let post = try Post(context: context)
            post.title = "over TLS"
            try context.save()
        }
        let sessions = try PostgresTLSCluster.sessions(schema: schema)
        XCTAssertGreaterThan(sessions.all, 0, "the store's sessions are on the TLS listener")
        XCTAssertEqual(sessions.overTLS, sessions.all, "every session of the store is a TLS session")

        let reader = PersistentContainer(name: "Blog", managedObjectModel: container.managedObjectModel)
        reader.persistentStoreDescriptions = container.persistentStoreDescriptions
        try reader.loadPersistentStores()
        let readContext = reader.newBackgroundContext()
        XCTAssertEqual(try readContext.performAndWait { try readContext.fetch(FetchRequest<Post>()).map(\.title) }, ["over TLS"])
        for stack in [container, reader] {
            for store in stack.persistentStoreCoordinator.persistentStores { try stack.persistentStoreCoordinator.removePersistentStore(store) }
        }
    }

    /// Loading refuses with `serverNotTrusted`, whose message has `words` in it.
    private func checkRefused(_ container: PersistentContainer, saying words: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try container.loadPersistentStores(), file: file, line: line) { error in
            let storeError = error as? StoreError
            XCTAssertEqual(storeError?.code, .serverNotTrusted, "refused at once, not retried until the connect timeout: \(error)", file: file, line: line)
            XCTAssertTrue(storeError?.message.contains(words) == true, "\(error) says \(words)", file: file, line: line)
            XCTAssertNotNil(storeError?.underlyingError, "the TLS layer's error is kept", file: file, line: line)
        }
        XCTAssertTrue(container.persistentStoreCoordinator.persistentStores.isEmpty, "no store was loaded", file: file, line: line)
    }

    // MARK: Encryption without verification

    /// `require` encrypts and checks nothing of the certificate: neither its CA (none is given)
    /// nor its name (it names localhost, not 127.0.0.1).
    func testRequireEncryptsWithoutCheckingTheCertificate() throws {
        let cluster = try PostgresTLSCluster.require()
        let schema = PostgresTestServer.freshSchema("tlsreq")
        let container = try Self.container(try cluster.url(host: "127.0.0.1", ["sslmode": "require"]), schema: schema)
        try container.loadPersistentStores()
        try checkSavesAndReadsOverTLS(container, schema: schema)
    }

    /// `prefer` takes TLS when the server offers it (this listener takes nothing else).
    func testPreferUsesTLSWhenTheServerOffersIt() throws {
        let cluster = try PostgresTLSCluster.require()
        let schema = PostgresTestServer.freshSchema("tlspref")
        let container = try Self.container(try cluster.url(host: "127.0.0.1", ["sslmode": "prefer"]), schema: schema)
        try container.loadPersistentStores()
        try checkSavesAndReadsOverTLS(container, schema: schema)
    }

    /// As libpq does, `require` given a root certificate checks the chain (as `verify-ca`).
    func testRequireWithARootCertificateChecksTheChain() throws {
        let cluster = try PostgresTLSCluster.require()
        let refused = try Self.container(
            try cluster.url(host: "127.0.0.1", ["sslmode": "require", "sslrootcert": cluster.unrelatedRootCertificate]), schema: PostgresTestServer.freshSchema("tlsreqca"))
        checkRefused(refused, saying: "does not chain to the root certificate")

        let schema = PostgresTestServer.freshSchema("tlsreqca")
        let accepted = try Self.container(try cluster.url(host: "127.0.0.1", ["sslmode": "require", "sslrootcert": cluster.rootCertificate]), schema: schema)
        try accepted.loadPersistentStores()
        try checkSavesAndReadsOverTLS(accepted, schema: schema)
    }

    // MARK: Verification

    func testVerifyFullWithTheRightRootCertificateAndHostNameConnects() throws {
        let cluster = try PostgresTLSCluster.require()
        let schema = PostgresTestServer.freshSchema("tlsfull")
        let container = PersistentContainer(name: "Blog", managedObjectModel: try BlogModel.make())
        PostgresStore.register()
        try Self.loadOverVerifiedTLS(container, serverURL: try cluster.url(host: "localhost", ["schema": schema]), rootCertificatePath: cluster.rootCertificate)
        try checkSavesAndReadsOverTLS(container, schema: schema)
    }

    func testVerifyFullAgainstAnUnrelatedRootCertificateIsRefused() throws {
        let cluster = try PostgresTLSCluster.require()
        let url = try cluster.url(host: "localhost", ["sslmode": "verify-full", "sslrootcert": cluster.unrelatedRootCertificate])
        checkRefused(try Self.container(url, schema: PostgresTestServer.freshSchema("tlswrongca")), saying: "does not chain to the root certificate \(cluster.unrelatedRootCertificate)")
    }

    /// The certificate names `localhost` only; 127.0.0.1 is the same server, but not the name
    /// the certificate vouches for.
    func testVerifyFullToAHostNameTheCertificateDoesNotNameIsRefused() throws {
        let cluster = try PostgresTLSCluster.require()
        let url = try cluster.url(host: "127.0.0.1", ["sslmode": "verify-full", "sslrootcert": cluster.rootCertificate])
        checkRefused(try Self.container(url, schema: PostgresTestServer.freshSchema("tlsname")), saying: "is not for the host 127.0.0.1")
    }

    /// `verify-ca` checks the chain but not the name.
    func testVerifyCAAcceptsTheRightChainWhateverTheHostName() throws {
        let cluster = try PostgresTLSCluster.require()
        let schema = PostgresTestServer.freshSchema("tlsca")
        let container = try Self.container(
            try cluster.url(host: "127.0.0.1", [:]), schema: schema,
            options: [.postgresTLS: "verify-ca", .postgresRootCertificate: .string(cluster.rootCertificate)])
        try container.loadPersistentStores()
        try checkSavesAndReadsOverTLS(container, schema: schema)

        let url = try cluster.url(host: "127.0.0.1", ["sslmode": "verify-ca", "sslrootcert": cluster.unrelatedRootCertificate])
        checkRefused(try Self.container(url, schema: PostgresTestServer.freshSchema("tlsca")), saying: "does not chain")
    }

    // MARK: Settings refused before connecting (no server needed)

    /// Nothing listens on port 1: each of these fails on its settings before any connection.
    func testVerificationWithoutAUsableRootCertificateIsAnInvalidOption() throws {
        let directory = try TemporaryDirectory()
        let notPEM = directory.file("not-a-certificate.pem")
        try Data("not a certificate\n".utf8).write(to: notPEM)
        let cases: [(settings: String, says: String)] = [
            ("sslmode=verify-full", "needs a root certificate"),
            ("sslmode=verify-ca", "needs a root certificate"),
            ("sslmode=verify-full&sslrootcert=\(directory.file("missing.pem").path)", "no readable file"),
            ("sslmode=verify-ca&sslrootcert=\(notPEM.path)", "not-a-certificate.pem"),
            ("sslmode=require&sslrootcert=system", "sslrootcert=system needs sslmode=verify-full"),
            ("sslmode=verify-everything", "unknown sslmode"),
        ]
        PostgresStore.register()
        for (settings, says) in cases {
            let url = try XCTUnwrap(URL(string: "postgres://stowage@127.0.0.1:1/postgres?" + settings))
            let container = try Self.container(url, schema: "unused")
            XCTAssertThrowsError(try container.loadPersistentStores(), settings) { error in
                XCTAssertEqual((error as? StoreError)?.code, .invalidOption, "\(settings): \(error)")
                XCTAssertTrue((error as? StoreError)?.message.contains(says) == true, "\(settings): \(error) says \(says)")
            }
        }
    }
}
#endif
