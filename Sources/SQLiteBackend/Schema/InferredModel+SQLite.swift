import Foundation
import StoreCore

extension InferredModel {
    /// Rebuilds the model of a Core Data SQLite store from the file alone: entities from
    /// `Z_PRIMARYKEY` (names, numbers, inheritance), attributes from the tables' columns and
    /// their declared types, to-one relationships from the indexed foreign-key columns (ordered
    /// when a `Z_FOK_` column goes with them), many-to-many relationships from `Z_<n><NAME>`
    /// join tables. The file is opened read-only and never changed. docs/inspection.md lists
    /// what is inferred and its limits.
    ///
    /// For example:
    ///
    /// ```swift
    /// let inferred = try InferredModel(sqliteStoreAt: URL(fileURLWithPath: "Recipes.sqlite"))
    /// inferred.model.entitiesByName["Recipe"]?.relationshipsByName["type"]?.destinationEntityName   // "RecipeType"
    /// ```
    ///
    /// - Throws: ``/StoreCore/StoreError`` — `io` when the file cannot be opened, `wrongFormat` when it is a
    ///   SQLite database but not a Core Data store, `corrupt` when it is damaged.
    public init(sqliteStoreAt url: URL) throws {
        self = try SQLiteModelInference(url: url).infer()
    }
}
