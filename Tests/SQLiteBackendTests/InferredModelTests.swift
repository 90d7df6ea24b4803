import Foundation
@testable import SQLiteBackend
import StoreCore
import StoreSQL
import StoreTestSupport
import XCTest

/// Inspection mode on SQLite stores: a model rebuilt from `Z_PRIMARYKEY` and the schema alone
/// opens stores Apple's Core Data wrote (and ours), read-only, with their relationships readable.
final class InferredModelTests: XCTestCase {
    private func fixture(_ path: String, in directory: TemporaryDirectory) throws -> URL {
        guard let url = try CoreDataFixtures.copyOfStore(path, into: directory.url) else {
            throw XCTSkip("the Core Data fixtures are not present")
        }
        return url
    }

    private func open(_ url: URL, _ inferred: InferredModel) throws -> PersistentContainer {
        let container = PersistentContainer(name: "Inspect", managedObjectModel: inferred.model)
        container.persistentStoreDescriptions = [.inspecting(url, type: .sqlite)]
        try container.loadPersistentStores()
        return container
    }

    func testManyToManyJoinTableGivesBothSidesTheirNames() throws {
        let directory = try TemporaryDirectory()
        let url = try fixture("bignerdranch__CoreDataStack/TestModel.sqlite", in: directory)
        let inferred = try InferredModel(sqliteStoreAt: url)
        let model = inferred.model
        XCTAssertTrue(model.isInferred)
        XCTAssertEqual(model.entities.map(\.name), ["Author", "Book"])
        let author = try XCTUnwrap(model.entitiesByName["Author"])
        XCTAssertEqual(author.attributesByName["firstname"]?.attributeType, .string)
        XCTAssertEqual(author.attributesByName["lastname"]?.attributeType, .string)
        let books = try XCTUnwrap(author.relationshipsByName["books"])
        XCTAssertTrue(books.isToMany)
        XCTAssertEqual(books.destinationEntityName, "Book")
        XCTAssertEqual(books.inverseName, "authors")
        XCTAssertEqual(model.entitiesByName["Book"]?.relationshipsByName["authors"]?.isToMany, true)
        XCTAssertTrue(inferred.notes.isEmpty, "\(inferred.notes)")
        XCTAssertNotNil(try open(url, inferred).persistentStoreCoordinator.persistentStores.first)
    }

    func testToOneDestinationsAreFoundByNameAndKeysAndReadThroughFetches() throws {
        let directory = try TemporaryDirectory()
        let url = try fixture("fruitsamples__iPhoneCoreDataRecipes/Recipes.sqlite", in: directory)
        let inferred = try InferredModel(sqliteStoreAt: url)
        let model = inferred.model
        XCTAssertEqual(model.entities.map(\.name), ["Image", "Ingredient", "Recipe", "RecipeType"])
        let recipe = try XCTUnwrap(model.entitiesByName["Recipe"])
        XCTAssertEqual(recipe.relationshipsByName["type"]?.destinationEntityName, "RecipeType", "matched by name, checked by keys")
        XCTAssertEqual(recipe.relationshipsByName["image"]?.inverseName, "recipe", "the two to-ones of a one-to-one are paired")
        XCTAssertEqual(recipe.relationshipsByName["ingredients"]?.isToMany, true, "the inverse of Ingredient.recipe, named after Ingredient")
        XCTAssertEqual(recipe.attributesByName["thumbnailimage"]?.attributeType, .binaryData)
        XCTAssertEqual(model.entitiesByName["Ingredient"]?.attributesByName["displayorder"]?.attributeType, .integer64)
        XCTAssertNil(model.entitiesByName["Ingredient"]?.attributesByName["recipe"], "an indexed foreign key is a relationship")

        let context = try open(url, inferred).newBackgroundContext()
        try context.performAndWait {
            XCTAssertEqual(try context.count(for: FetchRequest<ManagedObject>(entityName: "Recipe")), 7)
            XCTAssertEqual(try context.count(for: FetchRequest<ManagedObject>(entityName: "Ingredient")), 31)
            let cake = try XCTUnwrap(context.fetch(FetchRequest<ManagedObject>(entityName: "Recipe", predicate: .format("name == %@", "Chocolate Cake"))).first)
            XCTAssertEqual((try cake.value(forKey: "ingredients") as? Set<ManagedObject>)?.count, 9)
            let type = try XCTUnwrap(cake.value(forKey: "type") as? ManagedObject)
            XCTAssertEqual(try type.value(forKey: "name") as? String, "Dessert")
            let inCake = FetchRequest<ManagedObject>(entityName: "Ingredient", predicate: try .format("recipe.name == %@", "Gaufres de Liège"))
            XCTAssertEqual(try context.count(for: inCake), 11, "key paths through an inferred to-one compile to SQL")
        }
    }

    func testOrderedRelationshipsKeepTheirOrder() throws {
        let directory = try TemporaryDirectory()
        let url = try fixture("duckduckgo__BrowserServicesKit/Bookmarks_V4.sqlite", in: directory)
        let inferred = try InferredModel(sqliteStoreAt: url)
        let entity = try XCTUnwrap(inferred.model.entitiesByName["BookmarkEntity"])
        XCTAssertEqual(entity.relationshipsByName["favorites"]?.isOrdered, true, "Z_FOK_1FAVORITES")
        XCTAssertEqual(entity.relationshipsByName["favoritefolders"]?.isOrdered, false)
        let parent = try XCTUnwrap(entity.relationshipsByName["parent"])
        XCTAssertFalse(parent.isToMany)
        let children = try XCTUnwrap(parent.inverseName.flatMap { entity.relationshipsByName[$0] })
        XCTAssertTrue(children.isOrdered, "Z_FOK_PARENT makes the inverse ordered")
        XCTAssertNotNil(children.userInfo[InferredModel.madeUpInverseKey])

        let context = try open(url, inferred).newBackgroundContext()
        try context.performAndWait {
            let all = try context.fetch(FetchRequest<ManagedObject>(entityName: "BookmarkEntity"))
            XCTAssertEqual(all.count, 10)
            let root = try XCTUnwrap(all.first { $0.objectID.primaryKey == 5 })
            let ordered = try XCTUnwrap(root.value(forKey: children.name) as? [ManagedObject])
            XCTAssertEqual(ordered.compactMap(\.objectID.primaryKey), [2, 9, 4, 1, 8])
            let folder = try XCTUnwrap(all.first { $0.objectID.primaryKey == 3 })
            let favorites = try XCTUnwrap(folder.value(forKey: "favorites") as? [ManagedObject])
            XCTAssertEqual(favorites.compactMap(\.objectID.primaryKey), [8, 1, 10, 7, 9])
        }
    }

    func testToManyWithoutInverseIsReadFromCoreDatasHiddenColumn() throws {
        let directory = try TemporaryDirectory()
        let url = try fixture("kean__Pulse/logs-package.pulse/logs.sqlite", in: directory)
        let inferred = try InferredModel(sqliteStoreAt: url)
        let message = try XCTUnwrap(inferred.model.entitiesByName["LoggerMessageEntity"])
        XCTAssertEqual(message.relationshipsByName["metadata"]?.destinationEntityName, "LoggerMetadataEntity")
        XCTAssertEqual(message.relationshipsByName["metadata"]?.isToMany, true)
        XCTAssertNil(message.relationshipsByName["metadata"]?.inverseName, "Z1METADATA: Core Data's column for a to-many without an inverse")
        XCTAssertTrue(inferred.notes.isEmpty || !inferred.notes.contains { $0.contains("LoggerMetadataEntity.") }, "\(inferred.notes)")
        XCTAssertEqual(message.relationshipsByName["request"]?.destinationEntityName, "LoggerNetworkRequestEntity")
        let context = try open(url, inferred).newBackgroundContext()
        try context.performAndWait {
            XCTAssertEqual(try context.count(for: FetchRequest<ManagedObject>(entityName: "LoggerMessageEntity")), 23)
        }
    }

    func testSubEntitiesAndTheColumnsTheyDeclareAreRecovered() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Items.sqlite")
        let model = try ManagedObjectModel {
            EntityDescription("Item") { .attribute("title", .string) }
            EntityDescription("Note", parent: "Item") {
                .attribute("body", .string)
                .attribute("pages", .integer32)
                .toOne("folder", destination: "Folder", inverse: "notes")
            }
            EntityDescription("Folder") { .toMany("notes", destination: "Note", inverse: "folder") }
        }
        let container = try TestStack.sqliteContainer(model, at: url)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let folder = ManagedObject(entity: try XCTUnwrap(model.entitiesByName["Folder"]), insertInto: context)
            let item = ManagedObject(entity: try XCTUnwrap(model.entitiesByName["Item"]), insertInto: context)
            try item.setValue("plain", forKey: "title")
            let note = ManagedObject(entity: try XCTUnwrap(model.entitiesByName["Note"]), insertInto: context)
            try note.setValue("a note", forKey: "title")
            try note.setValue("text", forKey: "body")
            try note.setValue(folder, forKey: "folder")
            try context.save()
        }

        let inferred = try InferredModel(sqliteStoreAt: url)
        let note = try XCTUnwrap(inferred.model.entitiesByName["Note"])
        XCTAssertEqual(note.superentity?.name, "Item")
        XCTAssertEqual(Set(note.declaredProperties.map(\.name)), ["body", "folder"], "columns only notes use belong to Note")
        XCTAssertEqual(inferred.model.entitiesByName["Item"]?.declaredProperties.map(\.name).contains("pages"), true, "a column no row uses stays with the root")
        XCTAssertEqual(note.relationshipsByName["folder"]?.inverseName, "notes")
        let reopened = try open(url, inferred).newBackgroundContext()
        try reopened.performAndWait {
            var items = FetchRequest<ManagedObject>(entityName: "Item")
            XCTAssertEqual(try reopened.count(for: items), 2)
            items.includesSubentities = false
            XCTAssertEqual(try reopened.count(for: items), 1)
            let folder = try XCTUnwrap(reopened.fetch(FetchRequest<ManagedObject>(entityName: "Folder")).first)
            let notes = try XCTUnwrap(folder.value(forKey: "notes") as? Set<ManagedObject>)
            XCTAssertEqual(try notes.first?.value(forKey: "body") as? String, "text")
        }
    }

    func testSavesAreRefusedAndTheFileIsUnchanged() throws {
        let directory = try TemporaryDirectory()
        let url = try fixture("fruitsamples__iPhoneCoreDataRecipes/Recipes.sqlite", in: directory)
        let before = try Data(contentsOf: url)
        let inferred = try InferredModel(sqliteStoreAt: url)
        let context = try open(url, inferred).newBackgroundContext()
        try context.performAndWait {
            let type = try XCTUnwrap(context.fetch(FetchRequest<ManagedObject>(entityName: "RecipeType")).first)
            try type.setValue("Changed", forKey: "name")
            XCTAssertThrowsError(try context.save()) { error in
                let storeError = error as? StoreError
                XCTAssertEqual(storeError?.code, .readOnly)
                XCTAssertTrue(storeError?.message.contains("inspection mode") == true, "\(error)")
            }
        }
        XCTAssertEqual(try Data(contentsOf: url), before)
    }

    func testAFileThatIsNotACoreDataStoreIsRefused() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("plain.sqlite")
        let connection = try SQLiteConnection(path: url.path, mode: .readWrite, log: .disabled)
        try connection.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
        XCTAssertThrowsError(try InferredModel(sqliteStoreAt: url)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .wrongFormat)
        }
        XCTAssertThrowsError(try InferredModel(sqliteStoreAt: directory.file("missing.sqlite"))) { error in
            XCTAssertEqual((error as? StoreError)?.code, .io)
        }
    }
}
