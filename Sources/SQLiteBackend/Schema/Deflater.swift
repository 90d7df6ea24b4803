import Foundation
internal import CZlib

/// Compresses bytes as raw deflate (RFC 1951, no zlib or gzip header) with zlib — the form of
/// the compiled model Core Data keeps in `Z_MODELCACHE`, which `ModelFiles`' inflater reads back.
/// One `z_stream` per call, released before returning.
///
/// For example:
///
/// ```swift
/// let content = try Deflater.deflate(archive)   // Z_MODELCACHE.Z_CONTENT
/// ```
enum Deflater {
    /// zlib refused to compress (its message).
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func deflate(_ input: Data) throws(Failure) -> Data {
        var stream = z_stream()
        guard stowage_deflate_init2(&stream, Z_DEFAULT_COMPRESSION, -MAX_WBITS) == Z_OK else {
            throw Failure(description: stream.msg.map { String(cString: $0) } ?? "zlib could not start")
        }
        defer { deflateEnd(&stream) }
        var source = [UInt8](input)
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(source.count))))
        let outputCount = output.count
        let status = source.withUnsafeMutableBufferPointer { input in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = input.baseAddress
                stream.avail_in = uInt(input.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(outputCount)
                return CZlib.deflate(&stream, Z_FINISH)
            }
        }
        // deflateBound leaves room for the whole stream, so one call with Z_FINISH ends it.
        guard status == Z_STREAM_END else {
            throw Failure(description: stream.msg.map { String(cString: $0) } ?? "zlib error \(status)")
        }
        return Data(output[0..<(outputCount - Int(stream.avail_out))])
    }
}
