import Foundation
import FuzzDriver
import ModelFiles
import ModelFuzzSupport
import StoreCore

/// Where each input is written: a `.xcdatamodel` folder of this process's own.
private let modelFolder: URL = {
    let folder = fuzzWorkDirectory.appendingPathComponent("Fuzz.xcdatamodel")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}()

/// libFuzzer entry point: the input is an Xcode model file's `contents` (the XML inside a
/// `.xcdatamodel` folder). Reading it must return a version or throw `ModelFileError`; a model
/// it returns must answer everything a user asks of it (`exerciseModelVersion`), and reading
/// the same bytes again must give the same Core Data hashes. Anything else traps, and libFuzzer
/// saves the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func modelContentsFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let contents = modelFolder.appendingPathComponent("contents")
    do {
        try Data(UnsafeBufferPointer(start: data, count: size)).write(to: contents)
    } catch {
        preconditionFailure("cannot write the input to \(contents.path): \(error)")
    }
    let version: ModelVersion
    do {
        version = try ModelVersion(contentsOf: modelFolder)
    } catch {
        _ = error.description  // typed: ModelFileError
        return 0
    }
    let hashes = exerciseModelVersion(version)
    do {
        let again = try ModelVersion(contentsOf: modelFolder)
        guard again.model.coreDataEntityVersionHashesByName == hashes else {
            preconditionFailure("the same contents read as two different models")
        }
    } catch {
        preconditionFailure("contents that read once failed the second time: \(error)")
    }
    return 0
}
