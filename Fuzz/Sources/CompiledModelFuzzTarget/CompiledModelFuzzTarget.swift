import Foundation
import ModelFiles
import ModelFuzzSupport
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
            exerciseModelVersion(try CoreDataModelCache.version(decoding: bytes, storeURL: url))
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
    let hashes = exerciseModelVersion(version)
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
