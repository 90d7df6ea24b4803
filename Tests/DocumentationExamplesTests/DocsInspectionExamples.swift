import Foundation
import Stowage
import XCTest

/// docs/inspection.md: a SQLite store opened without its model, from a model inferred from the
/// file, in the current directory as the page has it.
final class DocsInspectionExamples: XCTestCase {
    /// Saves a recipes store at `url` with a model the inspection never sees: one dessert with
    /// two ingredients, one main course.
    private func makeRecipes(at url: URL) throws {
        let model = try ManagedObjectModel {
            EntityDescription("Recipe") {
                .attribute("name", .string)
                .toOne("type", destination: "RecipeType", inverse: "recipes")
                .toMany("ingredients", destination: "Ingredient", inverse: "recipe", deleteRule: .cascade)
            }
            EntityDescription("RecipeType") {
                .attribute("name", .string)
                .toMany("recipes", destination: "Recipe", inverse: "type")
            }
            EntityDescription("Ingredient") {
                .attribute("name", .string)
                .toOne("recipe", destination: "Recipe", inverse: "ingredients")
            }
        }
        let container = try ExampleStack.container(PersistentStoreDescription(url: url), model: model)
        let context = container.viewContext
        for (name, type, ingredients) in [("Tarte Tatin", "Dessert", ["apples", "butter"]), ("Ratatouille", "Main", ["courgettes"])] {
            let recipe = try context.insertNewObject(forEntityName: "Recipe")
            try recipe.setValue(name, forKey: "name")
            let kind = try context.insertNewObject(forEntityName: "RecipeType")
            try kind.setValue(type, forKey: "name")
            try recipe.setValue(kind, forKey: "type")
            for ingredientName in ingredients {
                let ingredient = try context.insertNewObject(forEntityName: "Ingredient")
                try ingredient.setValue(ingredientName, forKey: "name")
                try ingredient.setValue(recipe, forKey: "recipe")
            }
        }
        try context.save()
        ExampleStack.close(container)
    }

    func testInspectingAStoreWithoutItsModel() throws {
        let directory = try ExampleStack.makeDirectory()
        let previous = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(directory.path))
        defer {
            _ = FileManager.default.changeCurrentDirectoryPath(previous)
            ExampleStack.removeDirectory(directory)
        }
        try makeRecipes(at: directory.appendingPathComponent("Recipes.sqlite"))
        _ = printed.take()

        let url = URL(fileURLWithPath: "Recipes.sqlite")
        let inferred = try InferredModel(storeAt: url)        // type detected from the first bytes
        for note in inferred.notes { print("note:", note) }   // what was guessed or left out
        let container = PersistentContainer(name: "Inspect", managedObjectModel: inferred.model)
        container.persistentStoreDescriptions = [.inspecting(url, type: inferred.storeType)]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let cakes = try context.fetch(FetchRequest<ManagedObject>(entityName: "Recipe", predicate: .format("type.name == %@", "Dessert")))
            print(try cakes.map { try $0.value(forKey: "ingredients") as? Set<ManagedObject> })
        }

        XCTAssertEqual(inferred.storeType, .sqlite)
        let names = try context.performAndWait {
            let cakes = try context.fetch(FetchRequest<ManagedObject>(entityName: "Recipe", predicate: .format("type.name == %@", "Dessert")))
            return try cakes.flatMap { cake in
                try (cake.value(forKey: "ingredients") as? Set<ManagedObject> ?? []).map { try $0.value(forKey: "name") as? String ?? "" }
            }.sorted()
        }
        XCTAssertEqual(names, ["apples", "butter"])
        XCTAssertEqual(printed.take().filter { !$0.hasPrefix("note:") }.count, 1)
        ExampleStack.close(container)
    }
}
