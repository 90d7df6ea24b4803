import Foundation
import ModelFiles
import StoreCore

/// libFuzzer entry point: the input is a would-be compiled Core Data model (`.mom` bytes).
/// Decoding it must return a version or throw `ModelFileError`; a model it returns must answer
/// everything a user asks of it (entities, properties, inverses, both kinds of version hash,
/// every warning's text), and decoding the same bytes again must give the same hashes. Small
/// inputs are also tried as a store's model cache (raw deflate, inflated within its bound).
/// Anything else traps, and libFuzzer saves the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func compiledModelFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    let url = URL(fileURLWithPath: "/fuzz/Model.mom")
    if size <= 4096 {
        do {
            exercise(try CoreDataModelCache.version(decoding: bytes, storeURL: url))
        } catch {
            _ = error.description  // typed: ModelFileError
        }
    }
    let version: ModelVersion
    do {
        version = try ModelVersion(compiledModel: bytes, name: "Model", url: url)
    } catch {
        _ = error.description
        return 0
    }
    let hashes = exercise(version)
    do {
        let again = try ModelVersion(compiledModel: bytes, name: "Model", url: url)
        guard again.model.coreDataEntityVersionHashesByName == hashes else {
            preconditionFailure("the same bytes decoded to two different models")
        }
    } catch {
        preconditionFailure("bytes that decoded once failed the second time: \(error)")
    }
    return 0
}

/// Walks everything a user can ask of a decoded model; returns Core Data's entity hashes.
@discardableResult
private func exercise(_ version: ModelVersion) -> [String: Data] {
    let model = version.model
    var seen = 0
    for entity in model.entities {
        seen += entity.properties.count + entity.indexes.count + entity.fetchedProperties.count
        _ = entity.superentity?.name
        for relationship in entity.relationships {
            if relationship.inverseName != nil, relationship.inverseRelationship == nil {
                preconditionFailure("\(entity.name).\(relationship.name) names an inverse the model did not link")
            }
            _ = relationship.destinationEntity?.name
        }
        for attribute in entity.attributes {
            _ = attribute.attributeType.coerce(attribute.defaultValue)
        }
    }
    for warning in version.warnings { seen += warning.description.count }
    _ = model.entityVersionHashesByName
    _ = seen
    return model.coreDataEntityVersionHashesByName
}
