import Foundation
import StoreCore

/// A whole-file format written the way a user would write their own: the store as a JSON
/// document through `Codable`, plugged into the atomic-store engine with one line. It proves
/// that the engine, not the format, does the fetching, saving, model checks and atomic writes.
///
/// For example:
///
/// ```swift
/// JSONStoreFormat.register()
/// let description = PersistentStoreDescription(type: JSONStoreFormat.type, url: directory.file("Blog.json"))
/// ```
public struct JSONStoreFormat: AtomicStoreFormat {
    public static let type = PersistentStoreType(rawValue: "json")

    public init() {}

    public static func register() { AtomicStore.register(type, format: JSONStoreFormat()) }

    struct Document: Codable {
        var format = "stowage-json-store"
        var uuid: String
        var nextKey: Int64
        var modelVersionHashes: [String: Data]
        var userInfo: [String: Value]
        var objects: [Object]
    }

    struct Object: Codable {
        var entity: String
        var key: Int64
        var attributes: [String: Value]
        var relationships: [String: [Int64]]
    }

    /// Every value kind an attribute can hold, tagged so that nothing is guessed when read back.
    enum Value: Codable {
        case integer(Int64), double(Double), float(Float), decimal(String), string(String), boolean(Bool)
        case date(Date), data(Data), uuid(UUID), uri(URL)

        init?(_ value: StoreValue) {
            switch value {
            case .null, .objectID: return nil
            case .integer(let v): self = .integer(v)
            case .double(let v): self = .double(v)
            case .float(let v): self = .float(v)
            case .decimal(let v): self = .decimal(v.description)
            case .string(let v): self = .string(v)
            case .boolean(let v): self = .boolean(v)
            case .date(let v): self = .date(v)
            case .data(let v): self = .data(v)
            case .uuid(let v): self = .uuid(v)
            case .uri(let v): self = .uri(v)
            }
        }

        var storeValue: StoreValue {
            switch self {
            case .integer(let v): .integer(v)
            case .double(let v): .double(v)
            case .float(let v): .float(v)
            case .decimal(let v): Decimal(string: v, locale: Locale(identifier: "en_US_POSIX")).map(StoreValue.decimal) ?? .string(v)
            case .string(let v): .string(v)
            case .boolean(let v): .boolean(v)
            case .date(let v): .date(v)
            case .data(let v): .data(v)
            case .uuid(let v): .uuid(v)
            case .uri(let v): .uri(v)
            }
        }
    }

    public func read(_ data: Data, model: ManagedObjectModel) throws -> AtomicStoreFile {
        let document: Document
        do {
            let decoder = JSONDecoder()
            decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
            document = try decoder.decode(Document.self, from: data)
        } catch {
            throw StoreError(.wrongFormat, "not a JSON store: \(error)")
        }
        let metadata = StoreMetadata(
            storeUUID: document.uuid, storeType: Self.type.rawValue, modelVersionHashes: document.modelVersionHashes,
            userInfo: document.userInfo.mapValues(\.storeValue))
        let objects = document.objects.map {
            AtomicStoreObject(entityName: $0.entity, primaryKey: $0.key, attributes: $0.attributes.mapValues(\.storeValue), relationships: $0.relationships)
        }
        return AtomicStoreFile(metadata: metadata, nextPrimaryKey: document.nextKey, objects: objects)
    }

    public func write(_ file: AtomicStoreFile, model: ManagedObjectModel) throws -> Data {
        let document = Document(
            uuid: file.metadata.storeUUID, nextKey: file.nextPrimaryKey, modelVersionHashes: file.metadata.modelVersionHashes,
            userInfo: file.metadata.userInfo.compactMapValues(Value.init),
            objects: file.objects.map {
                Object(entity: $0.entityName, key: $0.primaryKey, attributes: $0.attributes.compactMapValues(Value.init), relationships: $0.relationships)
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return try encoder.encode(document)
    }
}
