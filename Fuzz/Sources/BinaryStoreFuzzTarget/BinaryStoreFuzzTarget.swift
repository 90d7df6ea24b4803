import BinaryBackend
import Foundation
import StoreCore

/// libFuzzer entry point: the input is a binary store file. Reading it must return a file or
/// throw `StoreError`; a file read must become the engine's snapshot graph or make it throw
/// `StoreError`; a graph that loads must write back to a file that reads again and writes the
/// very same bytes (values compared to the bit, NaNs included). Anything else traps, and
/// libFuzzer saves the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func binaryStoreFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    guard let model = BinaryStoreFuzzModel.model else { preconditionFailure("the fuzz model does not build") }
    let format = BinaryStoreFormat()
    let file: AtomicStoreFile
    do {
        file = try format.read(bytes, model: model)
    } catch is StoreError {
        return 0
    } catch {
        preconditionFailure("read threw a non-StoreError: \(error)")
    }
    let graph: SnapshotGraph
    do {
        graph = try SnapshotGraph(file: file, model: model, storeIdentifier: file.metadata.storeUUID, url: nil)
    } catch {
        return 0  // typed: StoreError
    }
    // What loaded must survive a write and a read unchanged.
    do {
        var written = graph.file(metadata: file.metadata, nextPrimaryKey: file.nextPrimaryKey)
        written.preservedMetadata = file.preservedMetadata
        let bytes = try format.write(written, model: model)
        guard try format.write(try format.read(bytes, model: model), model: model) == bytes else {
            preconditionFailure("a loaded store did not round-trip")
        }
    } catch {
        preconditionFailure("a loaded store could not be written and read back: \(error)")
    }
    return 0
}
