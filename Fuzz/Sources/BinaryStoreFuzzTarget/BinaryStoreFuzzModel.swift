import BinaryBackend
import Foundation
import StoreCore

/// A small model with every attribute type and every relationship kind, and a few valid store
/// files of it (the fuzzer's seeds).
public enum BinaryStoreFuzzModel {
    static let model: ManagedObjectModel? = try? ManagedObjectModel {
        EntityDescription("Note") {
            .attribute("i16", .integer16)
            .attribute("i32", .integer32)
            .attribute("i64", .integer64)
            .attribute("decimal", .decimal)
            .attribute("double", .double)
            .attribute("float", .float)
            .attribute("text", .string)
            .attribute("flag", .boolean)
            .attribute("when", .date)
            .attribute("blob", .binaryData)
            .attribute("uuid", .uuid)
            .attribute("link", .uri)
            .toOne("folder", destination: "Folder", inverse: "notes")
            .toMany("tags", destination: "Tag", inverse: "notes")
            .toMany("pages", destination: "Page", inverse: "note", ordered: true)
        }
        EntityDescription("Folder") {
            .attribute("name", .string)
            .toMany("notes", destination: "Note", inverse: "folder")
        }
        EntityDescription("Tag") {
            .attribute("name", .string)
            .toMany("notes", destination: "Note", inverse: "tags")
        }
        EntityDescription("Page", isAbstract: true) {
            .attribute("number", .integer32)
            .toOne("note", destination: "Note", inverse: "pages")
        }
        EntityDescription("TextPage", parent: "Page") {
            .attribute("body", .string)
        }
    }

    /// Small valid store files of the model.
    public static func seeds() throws -> [Data] {
        guard let model else { return [] }
        let format = BinaryStoreFormat()
        let uuid = "8E0E3E4C-62B4-4F3A-9E36-6C7E5E8B5B10"
        var files: [AtomicStoreFile] = [AtomicStoreFile(metadata: StoreMetadata(storeUUID: uuid, storeType: "binary"))]
        var file = AtomicStoreFile(metadata: StoreMetadata(storeUUID: uuid, storeType: "binary", modelVersionHashes: model.entityVersionHashesByName))
        file.objects = [
            AtomicStoreObject(entityName: "Folder", primaryKey: 1, attributes: ["name": "Inbox"], relationships: ["notes": [2]]),
            AtomicStoreObject(
                entityName: "Note", primaryKey: 2,
                attributes: [
                    "i16": .integer(-3), "i32": .integer(70_000), "i64": .integer(.max), "decimal": .decimal(Decimal(string: "12.5") ?? 0),
                    "double": .double(-.infinity), "float": .float(1.5), "text": "héllo\u{0}😀", "flag": true,
                    "when": .date(Date(timeIntervalSinceReferenceDate: 12.25)), "blob": .data(Data([1, 2, 3])),
                    "uuid": .uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))),
                    "link": .uri(URL(string: "https://example.com/a?b=c") ?? URL(fileURLWithPath: "/")),
                ],
                relationships: ["folder": [1], "tags": [3], "pages": [5, 4]]),
            AtomicStoreObject(entityName: "Tag", primaryKey: 3, attributes: ["name": "red"], relationships: ["notes": [2]]),
            AtomicStoreObject(entityName: "TextPage", primaryKey: 4, attributes: ["number": 2, "body": "two"], relationships: ["note": [2]]),
            AtomicStoreObject(entityName: "TextPage", primaryKey: 5, attributes: ["number": 1], relationships: ["note": [2]]),
        ]
        file.nextPrimaryKey = 6
        files.append(file)
        file.objects[1].attributes["text"] = .null
        file.objects[1].attributes["double"] = .double(.nan)
        file.metadata.userInfo["app"] = "fuzz"
        files.append(file)
        return try files.map { try format.write($0, model: model) }
    }
}
