import Foundation
import Stowage

/// What the articles' examples run on: the Blog model of Modeling.md ("The model these articles
/// use"), with the `Post` and `Comment` classes of GettingStarted.md and the `Author` class of
/// Modeling.md, in a store of the articles' choosing, filled with a few objects.
///
/// This file plays the part of the application around the examples; it is not itself an
/// example, but `model()` repeats Modeling.md's model word for word so that both stay the same.
enum ExampleStack {
    /// The Blog model, as Modeling.md builds it.
    static func model() throws -> ManagedObjectModel {
        let model = try ManagedObjectModel {
            EntityDescription("Author", class: Author.self, uniquenessConstraints: [["email"]]) {
                .attribute("name", .string, optional: false, defaultValue: "")
                .attribute("email", .string, rules: [.pattern("[^@ ]+@[^@ ]+")])
                .toMany("posts", destination: "Post", inverse: "author", deleteRule: .deny)
            }
            EntityDescription("Post", class: Post.self, indexes: [
                FetchIndexDescription(name: "byTimestamp", elements: [.init("timestamp", ascending: false)]),
            ]) {
                .attribute("title", .string, optional: false, defaultValue: "")
                .attribute("timestamp", .date)
                .attribute("views", .integer64, optional: false, defaultValue: 0, rules: [.minimum(0)])
                .toOne("author", destination: "Author", inverse: "posts")
                .toMany("comments", destination: "Comment", inverse: "post", deleteRule: .cascade)
                .toMany("attachments", destination: "Attachment", inverse: "post", ordered: true, deleteRule: .cascade)
            }
            EntityDescription("Comment", class: Comment.self) {
                .attribute("text", .string)
                .toOne("post", destination: "Post", inverse: "comments")
            }
            EntityDescription("Attachment", isAbstract: true) {
                .attribute("caption", .string)
                .toOne("post", destination: "Post", inverse: "attachments")
            }
            EntityDescription("Photo", parent: "Attachment") {
                .attribute("pixels", .binaryData, allowsExternalBinaryDataStorage: true)
            }
            EntityDescription("Link", parent: "Attachment") {
                .attribute("address", .uri)
            }
        }
        return model
    }

    /// A container whose one store is `description` (in memory unless told otherwise), loaded.
    static func container(
        _ description: PersistentStoreDescription = PersistentStoreDescription(type: .inMemory),
        model: ManagedObjectModel? = nil
    ) throws -> PersistentContainer {
        let container = PersistentContainer(name: "Blog", managedObjectModel: try model ?? Self.model())
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        return container
    }

    /// A loaded container holding the objects of ``seed(_:)``, saved.
    static func seeded(_ description: PersistentStoreDescription = PersistentStoreDescription(type: .inMemory)) throws -> PersistentContainer {
        let container = try Self.container(description)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            try seed(context)
            try context.save()
        }
        return container
    }

    /// Two authors, three posts (views 120, 45 and 300), three comments, a photo and a link:
    ///
    /// - "Misty Morning" by Ada, a day old, 120 views, comments "Lovely light" and "Where is this?", a photo;
    /// - "Harbour Lights" by Ada, two days old, 45 views, comment "Wow", a link;
    /// - "Northern Sky" by Grace, three days old, 300 views, no comments.
    static func seed(_ context: ManagedObjectContext) throws {
        let ada = try Author(context: context)
        ada.name = "Ada"
        ada.email = "ada@example.com"
        let grace = try Author(context: context)
        grace.name = "Grace"
        grace.email = "grace@example.com"

        func post(_ title: String, by author: Author, views: Int64, daysAgo: Double, comments: [String]) throws -> Post {
            let post = try Post(context: context)
            post.title = title
            post.timestamp = Date().addingTimeInterval(-daysAgo * 86_400)
            try post.setValue(views, forKey: "views")
            author.posts.insert(post)
            for text in comments {
                let comment = try Comment(context: context)
                comment.text = text
                post.comments.insert(comment)
            }
            return post
        }
        let misty = try post("Misty Morning", by: ada, views: 120, daysAgo: 1, comments: ["Lovely light", "Where is this?"])
        let harbour = try post("Harbour Lights", by: ada, views: 45, daysAgo: 2, comments: ["Wow"])
        _ = try post("Northern Sky", by: grace, views: 300, daysAgo: 3, comments: [])

        let photo = try context.insertNewObject(forEntityName: "Photo")
        try photo.setValue("Fog", forKey: "caption")
        try photo.setValue(Data([0x89, 0x50, 0x4E, 0x47]), forKey: "pixels")
        try misty.add(photo, toRelationship: "attachments")
        let link = try context.insertNewObject(forEntityName: "Link")
        try link.setValue("Map", forKey: "caption")
        try link.setValue(URL(string: "https://example.com/harbour"), forKey: "address")
        try harbour.add(link, toRelationship: "attachments")
    }

    /// A fresh directory under the system's temporary directory, created now; the test that asks
    /// for it removes it in `tearDown` with ``removeDirectory(_:)``.
    static func makeDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Removes a directory made by ``makeDirectory()`` and everything in it.
    static func removeDirectory(_ url: URL?) {
        guard let url else { return }
        try? FileManager.default.removeItem(at: url)
    }

    /// Removes every store of a container from its coordinator (closing their files).
    static func close(_ container: PersistentContainer) {
        let coordinator = container.persistentStoreCoordinator
        for store in coordinator.persistentStores { try? coordinator.removePersistentStore(store) }
    }
}
