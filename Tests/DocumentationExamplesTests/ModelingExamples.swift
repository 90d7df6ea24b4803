import Foundation
import Stowage
import XCTest

final class Author: ManagedObject {
    @Attribute var name: String
    @Attribute var email: String?
    @Relationship var posts: Set<Post>
}

/// Modeling.md: attribute types and options, the Blog model, inheritance, model files.
final class ModelingExamples: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try ExampleStack.makeDirectory()
    }

    override func tearDown() {
        ExampleStack.removeDirectory(directory)
        super.tearDown()
    }

    func testEveryAttributeTypeAndOption() throws {
        AttributeValueTransformers.register(CodableAttributeTransformer<[String]>(), named: "Tags")

        let settings = try ManagedObjectModel {
            EntityDescription("Setting") {
                .attribute("name", .string, optional: false, defaultValue: "")
                .attribute("level", .integer16, defaultValue: 1, rules: .range(1...10))
                .attribute("limit", .integer32)
                .attribute("total", .integer64, optional: false, defaultValue: 0)
                .attribute("ratio", .double, defaultValue: 0.5)
                .attribute("weight", .float)
                .attribute("price", .decimal)
                .attribute("enabled", .boolean, optional: false, defaultValue: true)
                .attribute("updated", .date)
                .attribute("icon", .binaryData, allowsExternalBinaryDataStorage: true)
                .attribute("identifier", .uuid)
                .attribute("homepage", .uri)
                .attribute("tags", .transformable(named: "Tags"))
                .attribute("scratch", .undefined, transient: true)
            }
        }

        let entity = try settings.entity(named: "Setting")
        XCTAssertEqual(entity.attributesByName["icon"]?.allowsExternalBinaryDataStorage, true)
        XCTAssertEqual(entity.attributesByName["level"]?.validationRules, [.minimum(1), .maximum(10)])
        XCTAssertEqual(entity.attributesByName["tags"]?.attributeType, .transformable(named: "Tags"))
        XCTAssertEqual(entity.attributesByName["scratch"]?.isTransient, true)
        XCTAssertEqual(entity.attributesByName["name"]?.isOptional, false)

        let container = try ExampleStack.container(model: settings)
        let context = container.viewContext

        let setting = try context.insertNewObject(forEntityName: "Setting")
        try setting.setValue(["swift", "linux"], forKey: "tags")
        try setting.setValue(Decimal(string: "9.99"), forKey: "price")
        print(try setting.value(forKey: "tags") as? [String] ?? [])    // ["swift", "linux"]
        print(try setting.value(forKey: "level") as? Int64 ?? 0)       // 1, the default

        XCTAssertEqual(try setting.value(forKey: "tags") as? [String], ["swift", "linux"])
        XCTAssertEqual(try setting.value(forKey: "level") as? Int64, 1)
        XCTAssertEqual(try setting.value(forKey: "ratio") as? Double, 0.5)
        XCTAssertEqual(try setting.value(forKey: "enabled") as? Bool, true)
        XCTAssertEqual(try setting.value(forKey: "price") as? Decimal, Decimal(string: "9.99"))
        try context.save()
    }

    func testTheArticlesModel() throws {
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

        XCTAssertEqual(model.entities.map(\.name), ["Attachment", "Author", "Comment", "Link", "Photo", "Post"])
        let author = try model.entity(named: "Author")
        XCTAssertEqual(author.uniquenessConstraints, [["email"]])
        XCTAssertEqual(author.relationshipsByName["posts"]?.deleteRule, .deny)
        let post = try model.entity(named: "Post")
        XCTAssertEqual(post.relationshipsByName["comments"]?.deleteRule, .cascade)
        XCTAssertEqual(post.relationshipsByName["attachments"]?.isOrdered, true)
        XCTAssertEqual(post.relationshipsByName["author"]?.inverseRelationship?.name, "posts")
        XCTAssertEqual(post.indexes.map(\.name), ["byTimestamp"])
        XCTAssertTrue(post.managedObjectClass == Post.self)
        // The same model as the one every other example runs on.
        XCTAssertEqual(model.entityVersionHashesByName, try ExampleStack.model().entityVersionHashesByName)

        let photo = try model.entity(named: "Photo")
        print(photo.superentity?.name ?? "")                       // Attachment
        print(photo.properties.map(\.name))                        // ["caption", "post", "pixels"]: inherited first
        print(try model.entity(named: "Attachment").isAbstract)    // true

        XCTAssertEqual(photo.superentity?.name, "Attachment")
        XCTAssertEqual(photo.properties.map(\.name), ["caption", "post", "pixels"])
        XCTAssertTrue(try model.entity(named: "Attachment").isAbstract)
        XCTAssertEqual(photo.attributesByName["pixels"]?.allowsExternalBinaryDataStorage, true)
    }

    func testAClassMayNotDeclareWhatItsEntityLacks() {
        XCTAssertThrowsError(try ManagedObjectModel {
            EntityDescription("Author", class: Author.self) {
                .attribute("name", .string)
            }
        }) { error in
            XCTAssertEqual((error as? ModelError)?.code, .classMismatch, "\(error)")
        }
    }

    /// The `contents` file of Modeling.md, word for word.
    static let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel">
            <entity name="Post" representedClassName="Post">
                <attribute name="title" attributeType="String" defaultValueString="" elementID="headline"/>
                <attribute name="commentCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="comments.@count"/>
                <relationship name="comments" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Comment" inverseName="post" inverseEntity="Comment"/>
                <fetchedProperty name="commentsOfPost" optional="YES">
                    <fetchRequest name="fetchedPropertyFetchRequest" entity="Comment" predicateString="post == $FETCH_SOURCE"/>
                </fetchedProperty>
            </entity>
            <entity name="Comment" representedClassName="Comment">
                <attribute name="text" optional="YES" attributeType="String"/>
                <relationship name="post" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Post" inverseName="comments" inverseEntity="Post"/>
            </entity>
            <fetchRequest name="PostsTitled" entity="Post" predicateString="title == $title"/>
            <configuration name="Local">
                <memberEntity name="Post"/>
                <memberEntity name="Comment"/>
            </configuration>
        </model>
        """

    func testModelFileProperties() throws {
        let modelURL = directory.appendingPathComponent("Blog.xcdatamodel", isDirectory: true)
        try FileManager.default.createDirectory(at: modelURL, withIntermediateDirectories: true)
        try Data(Self.contents.utf8).write(to: modelURL.appendingPathComponent("contents"))

        let fileModel = try ManagedObjectModel(contentsOf: modelURL)       // the Blog.xcdatamodel folder
        let filePost = try fileModel.entity(named: "Post")
        print(fileModel.configurations)                                   // ["Local": ["Post", "Comment"]]
        print(fileModel.fetchRequestTemplatesByName.keys.sorted())        // ["PostsTitled"]
        print(filePost.fetchedProperties.map(\.name))                     // ["commentsOfPost"]
        print(filePost.attributesByName["commentCount"]?.isDerived ?? false)   // true
        print(filePost.attributesByName["title"]?.renamingIdentifier ?? "")    // headline

        XCTAssertEqual(fileModel.configurations, ["Local": ["Post", "Comment"]])
        XCTAssertEqual(fileModel.fetchRequestTemplatesByName.keys.sorted(), ["PostsTitled"])
        XCTAssertEqual(filePost.fetchedProperties.map(\.name), ["commentsOfPost"])
        XCTAssertEqual(filePost.fetchedProperties.first?.fetchRequest.entityName, "Comment")
        XCTAssertEqual(filePost.attributesByName["commentCount"]?.isDerived, true)
        XCTAssertEqual(filePost.attributesByName["commentCount"]?.derivationExpression, "comments.@count")
        XCTAssertEqual(filePost.attributesByName["title"]?.renamingIdentifier, "headline")
        XCTAssertEqual(filePost.representedClassName, "Post")

        let titled: FetchRequest<ManagedObject> = try fileModel.fetchRequestFromTemplate(
            withName: "PostsTitled", substitutionVariables: ["title": "Misty Morning"])
        print(titled.predicate.map { "\($0)" } ?? "")                     // title == "Misty Morning"

        XCTAssertEqual(titled.predicate.map { "\($0)" }, "title == \"Misty Morning\"")
        XCTAssertEqual(titled.entityName, "Post")

        // The template runs like any request.
        let container = try ExampleStack.container(model: fileModel)
        let context = container.viewContext
        for title in ["Misty Morning", "Harbour Lights"] {
            try context.insertNewObject(forEntityName: "Post").setValue(title, forKey: "title")
        }
        try context.save()
        XCTAssertEqual(try context.fetch(titled).count, 1)
    }

    /// Writes a `Blog.xcdatamodeld` with versions "Blog" and "Blog 2" (the current one) into `folder`.
    private func writePackage(in folder: URL) throws -> URL {
        let package = folder.appendingPathComponent("Blog.xcdatamodeld", isDirectory: true)
        let versions = [
            ("Blog", #"<attribute name="title" optional="YES" attributeType="String"/>"#),
            ("Blog 2", #"<attribute name="title" optional="YES" attributeType="String"/><attribute name="subtitle" optional="YES" attributeType="String"/>"#),
        ]
        for (name, postAttributes) in versions {
            let version = package.appendingPathComponent("\(name).xcdatamodel", isDirectory: true)
            try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
            let contents = """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel">
                    <entity name="Post" representedClassName="Post">\(postAttributes)</entity>
                    <entity name="Comment" representedClassName="Comment"><attribute name="text" optional="YES" attributeType="String"/></entity>
                </model>
                """
            try Data(contents.utf8).write(to: version.appendingPathComponent("contents"))
        }
        let current = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>Blog 2.xcdatamodel</string></dict></plist>
            """
        try Data(current.utf8).write(to: package.appendingPathComponent(".xccurrentversion"))
        return package
    }

    func testModelPackagesAndResources() throws {
        let resourcesURL = directory.appendingPathComponent("Resources", isDirectory: true)
        let packageURL = try writePackage(in: resourcesURL)

        let bundle = try ManagedObjectModelBundle(contentsOf: packageURL)   // Blog.xcdatamodeld
        print(bundle.versions.map(\.name))                                 // ["Blog", "Blog 2"]
        print(bundle.currentVersionName)                                   // Blog 2
        let first = bundle.version(named: "Blog")?.model
        print(bundle.currentModel.migrationSourceModels.count)             // 1: the other version
        print(bundle.warnings.isEmpty)                                     // true: nothing was read past

        XCTAssertEqual(bundle.versions.map(\.name), ["Blog", "Blog 2"])
        XCTAssertEqual(bundle.currentVersionName, "Blog 2")
        XCTAssertNil(first?.entitiesByName["Post"]?.attributesByName["subtitle"])
        XCTAssertNotNil(bundle.currentModel.entitiesByName["Post"]?.attributesByName["subtitle"])
        XCTAssertTrue(bundle.currentModel.migrationSourceModels.first === first)
        XCTAssertEqual(bundle.warnings, [])

        let shipped = try PersistentContainer(name: "Blog", modelSearchDirectories: [resourcesURL])
        print(shipped.managedObjectModel.entities.map(\.name))           // ["Comment", "Post"]

        XCTAssertEqual(shipped.managedObjectModel.entities.map(\.name), ["Comment", "Post"])
        XCTAssertNotNil(shipped.managedObjectModel.entitiesByName["Post"]?.attributesByName["subtitle"], "the current version")
    }
}
