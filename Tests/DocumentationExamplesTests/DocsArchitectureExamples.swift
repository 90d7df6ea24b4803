import Foundation
import Stowage
import XCTest

// docs/architecture.md, "Concurrency": an actor on its context's queue.
actor Importer: ModelActor {
    nonisolated let modelExecutor: ManagedObjectContextExecutor
    init(container: PersistentContainer) { modelExecutor = .init(context: container.newBackgroundContext()) }
    func importPosts(_ titles: [String]) throws -> Int {
        for title in titles { try Post(context: managedObjectContext).title = title }
        try managedObjectContext.save()
        return titles.count
    }
}

/// docs/architecture.md: the model actor imports posts on its context's queue; they are saved.
final class DocsArchitectureExamples: XCTestCase {
    func testTheModelActorImports() async throws {
        let container = try ExampleStack.seeded()
        let importer = Importer(container: container)
        let imported = try await importer.importPosts(["Dawn", "Dusk"])
        XCTAssertEqual(imported, 2)
        let reader = container.newBackgroundContext()
        let titles = try await reader.perform { try reader.fetch(FetchRequest<Post>()).map(\.title).sorted() }
        XCTAssertEqual(titles, ["Dawn", "Dusk", "Harbour Lights", "Misty Morning", "Northern Sky"])
    }
}
