import Foundation
import Stowage

/// The demo's blog model: posts with comments, deleted together.
final class Post: ManagedObject {
    @Attribute var title: String
    @Attribute var timestamp: Date?
    @Attribute var image: Data?
    @Relationship var comments: Set<Comment>
}

final class Comment: ManagedObject {
    @Attribute var author: String
    @Attribute var text: String
    @Relationship var post: Post?
}

enum DemoModel {
    static func make() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Post", class: Post.self) {
                .attribute("title", .string, optional: false, defaultValue: "", rules: .length(1...200))
                .attribute("timestamp", .date)
                .attribute("image", .binaryData, allowsExternalBinaryDataStorage: true)
                .toMany("comments", destination: "Comment", inverse: "post", deleteRule: .cascade)
            }
            EntityDescription("Comment", class: Comment.self) {
                .attribute("author", .string, optional: false, defaultValue: "anonymous")
                .attribute("text", .string, optional: false, defaultValue: "")
                .toOne("post", destination: "Post", inverse: "comments", optional: false)
            }
        }
    }
}
