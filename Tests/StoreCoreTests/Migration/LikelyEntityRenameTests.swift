import Foundation
import Logging
import StoreCore
import Testing

/// An entity renamed without a renaming identifier: inference cannot know it is a rename (nor can
/// Core Data's), so the old entity's objects would be dropped; the mapping names the likely
/// rename, migration logs it, and a description can refuse it.
@Suite struct LikelyEntityRenameTests {
    static func v1() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Note") {
                .attribute("title", .string)
                .attribute("rank", .integer16)
            }
            EntityDescription("Node") {
                .attribute("label", .string)
                .toOne("parent", destination: "Node", inverse: "children")
                .toMany("children", destination: "Node", inverse: "parent")
            }
            EntityDescription("Folder") { .attribute("name", .string) }
        }
    }

    /// Note → Memo and Node → Vertex renamed without identifiers (Memo's rank made required, which
    /// does not make it another entity); Folder unchanged.
    static func v2(memoRank: AttributeType = .integer16, memoRenamingIdentifier: String? = nil) throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Memo", renamingIdentifier: memoRenamingIdentifier) {
                .attribute("title", .string)
                .attribute("rank", memoRank, optional: false, defaultValue: 0)
            }
            EntityDescription("Vertex") {
                .attribute("label", .string)
                .toOne("parent", destination: "Vertex", inverse: "children")
                .toMany("children", destination: "Vertex", inverse: "parent")
            }
            EntityDescription("Folder") { .attribute("name", .string) }
        }
    }

    @Test func aRemovedAndAnAddedEntityWithTheSamePropertiesAreNamedInTheMapping() throws {
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: try Self.v1(), destinationModel: try Self.v2())
        #expect(mapping.entityMapping(forSourceEntity: "Note")?.mappingType == .remove, "inference still drops the objects, as Core Data's does")
        #expect(mapping.likelyEntityRenames == [
            LikelyEntityRename(sourceEntityName: "Note", destinationEntityName: "Memo"),
            LikelyEntityRename(sourceEntityName: "Node", destinationEntityName: "Vertex"),
        ])
        let printed = mapping.description
        #expect(printed.contains("warning: Note was removed and Memo added with the same attributes and relationships"), "\(printed)")
        #expect(printed.contains("set Memo's renamingIdentifier to \"Note\""), "\(printed)")
    }

    @Test func anotherAttributeTypeOrARenamingIdentifierIsNoLikelyRename() throws {
        let retyped = try MappingModel.inferredMappingModel(forSourceModel: try Self.v1(), destinationModel: try Self.v2(memoRank: .integer32))
        #expect(retyped.likelyEntityRenames.map(\.destinationEntityName) == ["Vertex"], "Memo's rank is another type")
        let renamed = try MappingModel.inferredMappingModel(forSourceModel: try Self.v1(), destinationModel: try Self.v2(memoRenamingIdentifier: "Note"))
        #expect(renamed.entityMapping(forDestinationEntity: "Memo")?.sourceEntityName == "Note")
        #expect(renamed.likelyEntityRenames.map(\.destinationEntityName) == ["Vertex"])
        // Entities without stored properties say nothing about each other.
        let empty = try MappingModel.inferredMappingModel(
            forSourceModel: try ManagedObjectModel { EntityDescription("Marker") {} },
            destinationModel: try ManagedObjectModel { EntityDescription("Flag") {} })
        #expect(empty.likelyEntityRenames == [])
    }

    @Test func aRelationshipThatCannotBeInferredNamesTheLikelyRename() throws {
        let v1 = try ManagedObjectModel {
            EntityDescription("Person") {
                .attribute("name", .string)
                .toMany("pets", destination: "Pet", inverse: "owner")
            }
            EntityDescription("Pet") { .attribute("name", .string); .toOne("owner", destination: "Person", inverse: "pets") }
        }
        let v2 = try ManagedObjectModel {
            EntityDescription("Human") {
                .attribute("name", .string)
                .toMany("pets", destination: "Pet", inverse: "owner")
            }
            EntityDescription("Pet") { .attribute("name", .string); .toOne("owner", destination: "Human", inverse: "pets") }
        }
        let error = #expect(throws: MigrationError.self) { try MappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2) }
        #expect(error?.code == .cannotInferMapping)
        #expect(error?.message.contains("Person was removed and Human added with the same attributes and relationships") == true, "\(String(describing: error))")
    }

    @Test func aLikelyRenameIsLoggedAndRefusedWhenTheOptionsSaySo() throws {
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: try Self.v1(), destinationModel: try Self.v2())
        let lines = RecordingLogHandler.Lines()
        let logger = Logger(label: "stowage.migration") { _ in RecordingLogHandler(lines: lines) }
        let url = URL(fileURLWithPath: "/tmp/Notes.sqlite")
        try mapping.checkLikelyEntityRenames(url: url, options: [:], logger: logger)
        #expect(lines.all.count == 2)
        #expect(lines.all.first?.hasPrefix("warning: Notes.sqlite: Note was removed and Memo added") == true, "\(lines.all)")

        let error = #expect(throws: MigrationError.self) {
            try mapping.checkLikelyEntityRenames(url: url, options: [.refusesLikelyEntityRenames: true], logger: logger)
        }
        #expect(error?.code == .likelyEntityRename)
        #expect(error?.sourceEntity == "Note")
        #expect(error?.entity == "Memo")
        #expect(error?.message.contains("renamingIdentifier") == true)
        #expect(error?.message.contains("Node → Vertex") == true, "every likely rename is named: \(String(describing: error))")
        #expect(error?.description.hasPrefix("Note → Memo: ") == true, "\(String(describing: error))")
    }
}
