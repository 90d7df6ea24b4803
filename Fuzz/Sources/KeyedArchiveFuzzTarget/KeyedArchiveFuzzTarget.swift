import Foundation
import StoreCore

/// libFuzzer entry point: the input is a would-be `NSKeyedArchiver` archive. Unarchiving it must
/// return a value or throw `PropertyListError`; a value it returns must archive, and that archive
/// must unarchive and archive again to the very same bytes. Anything else traps, and libFuzzer
/// saves the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func keyedArchiveFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    let value: Any
    do {
        value = try KeyedArchive.unarchive(bytes)
    } catch {
        return 0  // typed: PropertyListError
    }
    do {
        let archived = try KeyedArchive.archive(value)
        guard try KeyedArchive.archive(try KeyedArchive.unarchive(archived)) == archived else {
            preconditionFailure("an unarchived value did not round-trip")
        }
    } catch {
        preconditionFailure("an unarchived value could not be archived and read back: \(error)")
    }
    return 0
}
