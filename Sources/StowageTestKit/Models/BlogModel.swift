import Foundation
import StoreCore

/// A post of the blog model (``BlogModel``) the kit's checks save and read back: posts with
/// cascading comments, tags (many-to-many), an ordered gallery, an author (deny rule), validation
/// rules, and an abstract `Item` with two sub-entities.
///
/// For example:
///
/// ```swift
/// let stack = try kit.makeStack(model: BlogModel.make())
/// let context = stack.newContext()
/// try context.performAndWait {
///     let post = try Post(context: context)
///     post.title = "Hello"
///     try context.save()
/// }
/// ```
public final class Post: ManagedObject {
    /// The title: required, 1 to 80 characters (a length rule); `validateForInsert()` refuses
    /// "forbidden" with `BlogRuleError.forbiddenTitle`.
    @Attribute public var title: String
    /// An optional date, set to 2001-01-01 by `awakeFromInsert()`; the entity's `byTime` fetch
    /// index orders by it, newest first.
    @Attribute public var timestamp: Date?
    /// The view count: required, 0 by default, within 0…1,000,000 (a range rule).
    @Attribute public var views: Int64
    /// Optional binary data.
    @Attribute public var image: Data?
    /// The post's comments: a to-many with the cascade delete rule (inverse `Comment.post`).
    @Relationship public var comments: Set<Comment>
    /// The post's tags: the many-to-many side of `Tag.posts`.
    @Relationship public var tags: Set<Tag>
    /// The post's gallery: an ordered to-many with the cascade delete rule (inverse `Photo.post`).
    @Relationship public var photos: [Photo]
    /// The post's author: a to-one whose inverse, `Author.posts`, has the deny delete rule.
    @Relationship public var author: Author?

    /// The title in capitals: a computed property, which reads `title` but is not a model key
    /// (a `#Predicate` over it is refused, never translated into one over `title`).
    public var shoutedTitle: String { title.uppercased() }

    /// How many times `awakeFromInsert()` ran on this instance (a lifecycle-hook counter).
    public var awakeFromInsertCalls = 0
    /// How many times `awakeFromFetch()` ran on this instance.
    public var awakeFromFetchCalls = 0
    /// How many times `willSave()` ran on this instance.
    public var willSaveCalls = 0
    /// How many times `didSave()` ran on this instance.
    public var didSaveCalls = 0
    /// How many times `prepareForDeletion()` ran on this instance.
    public var prepareForDeletionCalls = 0

    /// Counts the call in `awakeFromInsertCalls` and sets `timestamp` to 2001-01-01 (the reference date).
    public override func awakeFromInsert() {
        awakeFromInsertCalls += 1
        timestamp = Date(timeIntervalSinceReferenceDate: 0)
    }
    /// Counts the call in `awakeFromFetchCalls`.
    public override func awakeFromFetch() { awakeFromFetchCalls += 1 }
    /// Counts the call in `willSaveCalls`.
    public override func willSave() { willSaveCalls += 1 }
    /// Counts the call in `didSaveCalls`.
    public override func didSave() { didSaveCalls += 1 }
    /// Counts the call in `prepareForDeletionCalls`.
    public override func prepareForDeletion() { prepareForDeletionCalls += 1 }
    /// Refuses a post titled "forbidden" with `BlogRuleError.forbiddenTitle`.
    public override func validateForInsert() throws {
        if title == "forbidden" { throw BlogRuleError.forbiddenTitle }
    }
}

/// What the blog model's own validation hooks throw.
///
/// For example: saving a ``Post`` titled "forbidden" throws `BlogRuleError.forbiddenTitle`.
public enum BlogRuleError: Error {
    /// Thrown by `Post.validateForInsert()` for a post titled "forbidden".
    case forbiddenTitle
    /// Thrown by `Tag.validateValue(_:forKey:)` for a tag name that is not lowercase.
    case uppercaseTag
}

/// A comment of a ``Post`` (deleted with it); its author must be lowercase letters.
///
/// For example: `let comment = try Comment(context: context); comment.post = post`.
public final class Comment: ManagedObject {
    /// Who wrote it: required, "anonymous" by default, lowercase letters only (the pattern `[a-z]+`).
    @Attribute public var author: String
    /// The comment's text: required, empty by default.
    @Attribute public var text: String
    /// The post the comment belongs to (inverse of the cascading `Post.comments`).
    @Relationship public var post: Post?
}

/// A tag, unique by name (a uniqueness constraint), shared by many posts.
///
/// For example: `post.tags = [swift, linux]`.
public final class Tag: ManagedObject {
    /// The tag's name: required, unique among tags (a uniqueness constraint) and lowercase
    /// (`validateValue(_:forKey:)` throws `BlogRuleError.uppercaseTag` otherwise).
    @Attribute public var name: String
    /// The posts carrying the tag: the many-to-many side of `Post.tags`.
    @Relationship public var posts: Set<Post>

    /// Tags are lowercase (a per-property validation hook).
    public override func validateValue(_ value: StoreValue, forKey key: String) throws {
        if key == "name", case .string(let name) = value, name != name.lowercased() { throw BlogRuleError.uppercaseTag }
    }
}

/// A photo in a post's ordered gallery (`Post.photos`).
///
/// For example: `post.photos = [first, second]` keeps that order.
public final class Photo: ManagedObject {
    /// An optional caption.
    @Attribute public var caption: String?
    /// The post whose ordered gallery holds the photo (inverse of `Post.photos`).
    @Relationship public var post: Post?
}

/// Authors cannot be deleted while they have posts (deny rule).
///
/// For example: `post.author = ada` (and `ada.posts` holds the post).
public final class Author: ManagedObject {
    /// The author's name: required, empty by default.
    @Attribute public var name: String
    /// An optional address, stored under the attribute name `email` (a property whose Swift name
    /// differs from the model's).
    @Attribute("email") public var emailAddress: String?
    /// The author's posts: a to-many with the deny delete rule, so an author with posts cannot be
    /// deleted (inverse `Post.author`).
    @Relationship public var posts: Set<Post>
}

/// The blog model's descriptions, with the classes above.
///
/// For example:
///
/// ```swift
/// let stack = try kit.makeStack(model: BlogModel.make())   // a fresh store of the kit's type
/// let container = PersistentContainer(name: "Blog", managedObjectModel: try BlogModel.make())
/// ```
public enum BlogModel {
    /// A fresh model instance (entity descriptions belong to one model each).
    public static func make() throws -> ManagedObjectModel {
        try ManagedObjectModel(configurations: ["People": ["Author"], "Content": ["Post", "Comment", "Tag", "Photo", "Item"]]) {
            EntityDescription("Post", class: Post.self, indexes: [FetchIndexDescription(name: "byTime", elements: [.init("timestamp", ascending: false)])]) {
                .attribute("title", .string, optional: false, defaultValue: "", rules: .length(1...80))
                .attribute("timestamp", .date)
                .attribute("views", .integer64, optional: false, defaultValue: 0, rules: .range(Int64(0)...Int64(1_000_000)))
                .attribute("image", .binaryData)
                .toMany("comments", destination: "Comment", inverse: "post", deleteRule: .cascade)
                .toMany("tags", destination: "Tag", inverse: "posts")
                .toMany("photos", destination: "Photo", inverse: "post", ordered: true, deleteRule: .cascade)
                .toOne("author", destination: "Author", inverse: "posts")
            }
            EntityDescription("Comment", class: Comment.self) {
                .attribute("author", .string, optional: false, defaultValue: "anonymous", rules: [.pattern("[a-z]+")])
                .attribute("text", .string, optional: false, defaultValue: "")
                .toOne("post", destination: "Post", inverse: "comments")
            }
            EntityDescription("Tag", class: Tag.self, uniquenessConstraints: [["name"]]) {
                .attribute("name", .string, optional: false, defaultValue: "")
                .toMany("posts", destination: "Post", inverse: "tags")
            }
            EntityDescription("Photo", class: Photo.self) {
                .attribute("caption", .string)
                .toOne("post", destination: "Post", inverse: "photos")
            }
            EntityDescription("Author", class: Author.self) {
                .attribute("name", .string, optional: false, defaultValue: "")
                .attribute("email", .string)
                .toMany("posts", destination: "Post", inverse: "author", deleteRule: .deny)
            }
            EntityDescription("Item", isAbstract: true) {
                .attribute("label", .string)
            }
            EntityDescription("Book", parent: "Item") {
                .attribute("isbn", .string)
            }
            EntityDescription("Film", parent: "Item") {
                .attribute("minutes", .integer32)
            }
        }
    }
}
