import Foundation
import StoreCore
import XMLBackend

/// libFuzzer entry point: arbitrary bytes go to the XML store reader with a small model, and
/// whatever it reads goes through the engine's checks (`SnapshotGraph(file:…)`). Returning a
/// value or throwing an error are both fine; a trap, a crash, a hang or a memory blow-up is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func xmlFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, let model = FuzzModel.model else { return 0 }
    let bytes = Data(bytes: data, count: size)
    guard let file = try? XMLStoreFormat().read(bytes, model: model) else { return 0 }
    guard let graph = try? SnapshotGraph(file: file, model: model, storeIdentifier: file.metadata.storeUUID, url: nil) else { return 0 }
    // A file that was read must write back, and the written file must read again.
    let written: Data
    do {
        written = try XMLStoreFormat().write(graph.file(metadata: file.metadata, nextPrimaryKey: file.nextPrimaryKey), model: model)
    } catch let error as StoreError where error.code == .invalidOption {
        return 0  // a string XML cannot hold (it came from a character reference such as &#1;)
    } catch {
        preconditionFailure("a file that was read could not be written: \(error)")
    }
    do {
        _ = try XMLStoreFormat().read(written, model: model)
    } catch {
        preconditionFailure("a written file could not be read: \(error)")
    }
    return 0
}

/// A small model with every attribute type, a to-one, a to-many and an ordered to-many.
enum FuzzModel {
    static let model: ManagedObjectModel? = try? ManagedObjectModel {
        EntityDescription("Post") {
            .attribute("title", .string)
            .attribute("views", .integer64)
            .attribute("small", .integer16)
            .attribute("medium", .integer32)
            .attribute("score", .double)
            .attribute("ratio", .float)
            .attribute("price", .decimal)
            .attribute("flag", .boolean)
            .attribute("when", .date)
            .attribute("image", .binaryData)
            .attribute("packed", .transformable(named: "Fuzz"))
            .attribute("uuid", .uuid)
            .attribute("link", .uri)
            .toMany("comments", destination: "Comment", inverse: "post")
            .toMany("photos", destination: "Photo", inverse: "post", ordered: true)
        }
        EntityDescription("Comment") {
            .attribute("text", .string)
            .toOne("post", destination: "Post", inverse: "comments")
        }
        EntityDescription("Photo") {
            .attribute("caption", .string)
            .toOne("post", destination: "Post", inverse: "photos")
        }
    }
}
