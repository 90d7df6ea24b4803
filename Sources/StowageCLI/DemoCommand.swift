import ArgumentParser
import Foundation
import Stowage

/// `stowage demo`: builds the Post/Comment model, saves posts and comments from a background
/// context into a new store of the chosen type (SQLite by default), reads them back in the view
/// context, queries them, and shows a cascading delete and a refused save.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Insert, relate, fetch, change and delete objects end to end, and print what happens.",
        discussion: "Set STOWAGE_SQL_DEBUG=1 (up to 4) to see the SQL the store runs."
    )

    @Option(help: "The store type: sqlite, xml, binary, memory or postgres.")
    var store: DemoStoreKind = .sqlite

    @Option(help: "Where to create the store file (default: a new file in the temporary directory).")
    var path: String?

    @Option(help: "The PostgreSQL server for --store postgres: postgres://user@host/database (the store goes in a new schema unless the URL names one with ?schema=).")
    var url: String?

    func run() async throws {
        let model = try DemoModel.make()
        let container = PersistentContainer(name: "Demo", managedObjectModel: model)
        let description: PersistentStoreDescription
        let location: String
        let cleanup: String
        switch store {
        case .postgres:
            guard let url, var components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? "") else {
                throw ValidationError("--store postgres needs --url postgres://user@host/database")
            }
            if !(components.queryItems ?? []).contains(where: { $0.name == "schema" }) {
                let schema = "demo_" + UUID().uuidString.prefix(8).lowercased()
                components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "schema", value: schema)]
            }
            guard let serverURL = components.url else { throw ValidationError("--url is not a valid URL") }
            description = PersistentStoreDescription(type: .postgres, url: serverURL)
            location = "a postgres store at \(serverURL.absoluteString)"
            let schema = components.queryItems?.first { $0.name == "schema" }?.value ?? "the schema"
            cleanup = "The store stays in the schema \(schema) on the server; remove it with: psql … -c 'DROP SCHEMA \(schema) CASCADE'"
        case .memory:
            description = PersistentStoreDescription(type: .inMemory)
            location = "an in-memory store"
            cleanup = "The in-memory store is gone with the process; nothing was written."
        default:
            // By default the store gets a folder of its own, so that its companion files (SQLite's
            // -wal and -shm, externally stored values) go with it when the folder is removed.
            let fileURL: URL
            if let path {
                fileURL = URL(fileURLWithPath: path)
                cleanup = "The store stays at \(fileURL.path); remove it with: rm -r '\(fileURL.path)'*"
            } else {
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stowage-demo-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                fileURL = folder.appendingPathComponent("Demo.\(store.fileExtension)")
                cleanup = "The store stays in \(folder.path) (open it with `stowage inspect \(fileURL.path)`); remove it with: rm -r '\(folder.path)'"
            }
            description = PersistentStoreDescription(type: store.storeType, url: fileURL)
            location = "a \(store.rawValue) store at \(fileURL.path)"
        }
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        print("Loaded \(location) for model: \(model.entities.map(\.name).joined(separator: ", "))")

        let saved = try await container.performBackgroundTask { context in
            context.name = "importer"
            let start = Date(timeIntervalSince1970: 1_700_000_000)
            let titles = ["Misty Morning", "Harbour Lights", "First Snow"]
            for (day, title) in titles.enumerated() {
                let post = try Post(context: context)
                post.title = title
                post.timestamp = start.addingTimeInterval(Double(day) * 86_400)
                post.image = Data(repeating: UInt8(day), count: 1_024 * (day + 1))
                for (n, author) in ["ada", "grace", "linus"].prefix(day + 1).enumerated() {
                    let comment = try Comment(context: context)
                    comment.author = author
                    comment.text = "Comment \(n + 1) on \(title)"
                    post.comments.insert(comment)
                }
            }
            let counts = (context.insertedObjects.count, context.insertedObjects.filter { $0 is Comment }.count)
            try context.save()
            return counts
        }
        print("Background context saved \(saved.0) objects (\(saved.0 - saved.1) posts, \(saved.1) comments).")

        let context = container.viewContext
        var request = FetchRequest<Post>()
        request.sortDescriptors = [.ascending("timestamp")]
        let posts = try context.fetch(request)
        print("\nPosts in the view context, oldest first:")
        for post in posts {
            let wasFault = post.isFault
            let day = post.timestamp.map { $0.formatted(.iso8601.year().month().day()) } ?? "?"
            print("  \(day)  \(post.title)  — \(post.comments.count) comment(s), \(post.image?.count ?? 0) bytes of image\(wasFault ? " (was a fault until now)" : "")")
            for comment in post.comments.sorted(by: { $0.text < $1.text }) {
                print("      \(comment.author): \(comment.text)")
            }
        }

        var withGrace = FetchRequest<Post>()
        withGrace.predicate = try .format("ANY comments.author == %@ AND title BEGINSWITH[c] %@", "grace", "h")
        print("\nPosts starting with \"h\" that grace commented on: \(try context.fetch(withGrace).map(\.title))")

        guard let doomed = posts.last else { return }
        let commentsBefore = try context.count(for: FetchRequest<Comment>())
        print("\nDeleting \"\(doomed.title)\" (its comments cascade)…")
        context.delete(doomed)
        context.processPendingChanges()
        print("  objects marked for deletion: \(context.deletedObjects.count) (1 post + \(context.deletedObjects.count - 1) comments)")
        try context.save()
        let commentsAfter = try context.count(for: FetchRequest<Comment>())
        let postsAfter = try context.count(for: FetchRequest<Post>())
        print("  after save: \(postsAfter) posts, \(commentsAfter) comments (was \(commentsBefore))")

        print("\nTrying to save a comment without a post (the relationship is required)…")
        let orphan = try Comment(context: context)
        orphan.text = "Nobody's comment"
        do {
            try context.save()
        } catch let error as ObjectValidationError {
            for failure in error.allErrors { print("  refused: \(failure)") }
            context.rollback()
            print("  rolled back; the store is unchanged: \(try context.count(for: FetchRequest<Comment>())) comments")
        }
        print("\n\(cleanup)")
    }
}

/// The store types the demo runs on.
enum DemoStoreKind: String, ExpressibleByArgument, CaseIterable {
    case sqlite, xml, binary, memory, postgres

    var storeType: PersistentStoreType {
        switch self {
        case .sqlite: .sqlite
        case .xml: .xml
        case .binary: .binary
        case .memory: .inMemory
        case .postgres: .postgres
        }
    }

    var fileExtension: String {
        switch self {
        case .sqlite: "sqlite"
        case .xml: "xml"
        case .binary: "binarystore"
        case .memory, .postgres: ""
        }
    }
}
