import Foundation
import Stowage
import XCTest

/// docs/postgres.md's examples name servers of their own (`db.internal`, `db.example.com`), so
/// they are compiled here, not run: the PostgreSQL suites run the same calls against the test
/// cluster (`PostgresSharedSuiteTests`; `PostgresTLSTests` for the TLS options). The TLS options
/// exist only with the `Postgres` package trait, and so does their example here.
enum PostgresPage {
    static func openShared(model: ManagedObjectModel) throws -> PersistentContainer {
        let container = PersistentContainer(name: "Blog", managedObjectModel: model)
        var description = PersistentStoreDescription(url: URL(string: "postgres://app@db.internal/blog?schema=blog")!)
        description.isHistoryTrackingEnabled = true
        description.setOption(true, forKey: .remoteChangeNotificationPost)   // other machines' saves reach this one
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        return container
    }

    #if Postgres
    static func openVerified(_ container: PersistentContainer, serverURL: URL, rootCertificatePath: String) throws {
        var description = PersistentStoreDescription(url: serverURL)   // postgres://app@db.example.com/blog
        description.setOption("verify-full", forKey: .postgresTLS)
        description.setOption(.string(rootCertificatePath), forKey: .postgresRootCertificate)   // the CA's PEM file
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()   // StoreError.Code.serverNotTrusted when the certificate is refused
    }
    #endif
}

final class DocsPostgresExamples: XCTestCase {
    /// What the page's first example sets, checked without a server: the URL alone makes the
    /// description a PostgreSQL one.
    func testAPostgresURLMakesAPostgresDescription() throws {
        let description = PersistentStoreDescription(url: try XCTUnwrap(URL(string: "postgres://app@db.internal/blog?schema=blog")))
        XCTAssertEqual(description.type, .postgres)
    }
}
