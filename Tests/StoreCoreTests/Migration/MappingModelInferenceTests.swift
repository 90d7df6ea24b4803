import Foundation
import StoreCore
import Testing

/// What lightweight migration infers between two model versions, and the changes it names
/// when it cannot.
@Suite struct MappingModelInferenceTests {
    static func v1() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Note") {
                .attribute("body", .string)
                .attribute("rank", .integer16)
                .attribute("legacy", .string)
                .toOne("folder", destination: "Folder", inverse: "notes")
            }
            EntityDescription("Folder") {
                .attribute("name", .string)
                .toMany("notes", destination: "Note", inverse: "folder")
            }
            EntityDescription("Scratch") { .attribute("text", .string) }
        }
    }

    @Test func anUnchangedModelCopiesEveryEntity() throws {
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: try Self.v1(), destinationModel: try Self.v1())
        #expect(mapping.isIdentity)
        #expect(mapping.entityMappings.map(\.name).sorted() == ["FolderToFolder", "NoteToNote", "ScratchToScratch"])
    }

    @Test func renamesAdditionsRemovalsAndConversionsAreInferred() throws {
        let v2 = try ManagedObjectModel {
            EntityDescription("Memo", renamingIdentifier: "Note") {
                .attribute("text", .string, renamingIdentifier: "body")
                .attribute("rank", .integer64)
                .attribute("pinned", .boolean, optional: false, defaultValue: false)
                .toMany("folders", destination: "Folder", inverse: "memos", renamingIdentifier: "folder")
            }
            EntityDescription("Folder") {
                .attribute("name", .string)
                .toMany("memos", destination: "Memo", inverse: "folders", renamingIdentifier: "notes")
            }
            EntityDescription("Tag") { .attribute("label", .string) }
        }
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: try Self.v1(), destinationModel: v2)
        let memo = try #require(mapping.entityMapping(forDestinationEntity: "Memo"))
        #expect(memo.mappingType == .transform)
        #expect(memo.sourceEntityName == "Note")
        #expect(memo.name == "NoteToMemo")
        let byName = Dictionary(uniqueKeysWithValues: memo.propertyMappings.map { ($0.name, $0) })
        #expect(byName["text"]?.sourceKey == "body")
        #expect(byName["rank"]?.conversion == AttributeConversion(from: .integer16, to: .integer64))
        #expect(byName["pinned"]?.valueExpression == nil, "a new attribute takes its default")
        #expect(byName["folders"]?.sourceKey == "folder", "a to-one becoming a to-many")
        #expect(byName["legacy"] == nil, "a removed attribute maps to nothing")
        #expect(mapping.entityMapping(forDestinationEntity: "Tag")?.mappingType == .add)
        #expect(mapping.entityMapping(forSourceEntity: "Scratch")?.mappingType == .remove)
        #expect(mapping.entityMapping(forDestinationEntity: "Folder")?.mappingType == .transform)
        let printed = mapping.description
        #expect(printed.contains("transform Note → Memo"))
        #expect(printed.contains("text = $source.body (renamed)"))
        #expect(printed.contains("remove Scratch"))
    }

    @Test func aRenameAcrossSeveralVersionsStillMatches() throws {
        // v2 renamed body → text; v3 renames text → content and keeps the canonical name.
        let v3 = try ManagedObjectModel {
            EntityDescription("Note") {
                .attribute("content", .string, renamingIdentifier: "body")
                .attribute("rank", .integer16)
                .attribute("legacy", .string)
                .toOne("folder", destination: "Folder", inverse: "notes")
            }
            EntityDescription("Folder") {
                .attribute("name", .string)
                .toMany("notes", destination: "Note", inverse: "folder")
            }
        }
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: try Self.v1(), destinationModel: v3)
        let note = try #require(mapping.entityMapping(forDestinationEntity: "Note"))
        #expect(note.attributeMappings.first { $0.name == "content" }?.sourceKey == "body")
    }

    @Test func changesThatCannotBeInferredAreNamed() throws {
        let v2 = try ManagedObjectModel {
            EntityDescription("Note") {
                .attribute("body", .date)
                .attribute("rank", .integer16, optional: false)
                .attribute("legacy", .string)
                .attribute("owner", .string, optional: false)
                .toOne("folder", destination: "Folder", inverse: "notes")
            }
            EntityDescription("Folder") {
                .attribute("name", .string)
                .toMany("notes", destination: "Note", inverse: "folder")
            }
        }
        let error = try #require(throws: MigrationError.self) {
            try MappingModel.inferredMappingModel(forSourceModel: try Self.v1(), destinationModel: v2)
        }
        #expect(error.code == .cannotInferMapping)
        #expect(error.entity == "Note")
        #expect(error.message.contains("String becomes Date"))
        #expect(error.message.contains("rank: becomes required but has no default value"))
        #expect(error.message.contains("owner: the new attribute is required"))
    }

    @Test func aToManyBecomingAToOneIsNotInferred() throws {
        let v2 = try ManagedObjectModel {
            EntityDescription("Note") {
                .attribute("body", .string)
                .attribute("rank", .integer16)
                .attribute("legacy", .string)
                .toMany("folder", destination: "Folder", inverse: "notes")
            }
            EntityDescription("Folder") {
                .attribute("name", .string)
                .toOne("notes", destination: "Note", inverse: "folder")
            }
        }
        let error = try #require(throws: MigrationError.self) {
            try MappingModel.inferredMappingModel(forSourceModel: try Self.v1(), destinationModel: v2)
        }
        #expect(error.key == "notes")
        #expect(error.message.contains("to-many relationship becomes a to-one"))
    }

    @Test func conversionsFollowSQLitesCast() throws {
        #expect(try AttributeConversion(from: .double, to: .integer32).convert(.double(4.7)) == .integer(4))
        #expect(try AttributeConversion(from: .double, to: .integer32).convert(.double(-4.7)) == .integer(-4))
        #expect(try AttributeConversion(from: .integer64, to: .string).convert(.integer(12)) == .string("12"))
        #expect(try AttributeConversion(from: .double, to: .string).convert(.double(2)) == .string("2.0"))
        #expect(try AttributeConversion(from: .boolean, to: .string).convert(.boolean(true)) == .string("1"))
        #expect(try AttributeConversion(from: .integer16, to: .double).convert(.integer(3)) == .double(3))
        #expect(try AttributeConversion(from: .integer16, to: .boolean).convert(.integer(0)) == .boolean(false))
        #expect(try AttributeConversion(from: .integer16, to: .integer64).convert(.null) == .null)
        #expect(throws: MigrationError.self) { try AttributeConversion(from: .integer64, to: .integer16).convert(.integer(70_000)) }
        #expect(throws: MigrationError.self) { try AttributeConversion(from: .double, to: .integer64).convert(.double(.infinity)) }
    }
}
