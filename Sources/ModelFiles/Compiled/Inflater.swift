import Foundation
internal import CZlib

/// Inflates raw-deflate data (RFC 1951, no zlib or gzip header) with zlib, up to a bound on the
/// inflated size — Core Data compresses the model it caches in `Z_MODELCACHE` this way. One
/// `z_stream` per call, released before returning; output grows in 64 KiB steps, so a small
/// input that claims to inflate to gigabytes stops at the bound instead of exhausting memory.
///
/// For example:
///
/// ```swift
/// let archive = try Inflater.inflate(blob, limit: 64 << 20)   // the bplist of the model
/// ```
enum Inflater {
    /// Why inflating failed.
    enum Failure: Error, CustomStringConvertible {
        /// The output would exceed the limit.
        case tooLarge(limit: Int)
        /// The input is not a complete raw-deflate stream (zlib's message).
        case corrupt(String)

        var description: String {
            switch self {
            case .tooLarge(let limit): "it inflates to more than \(limit) bytes"
            case .corrupt(let message): "it is not raw-deflate data: \(message)"
            }
        }
    }

    static func inflate(_ input: Data, limit: Int) throws(Failure) -> Data {
        var stream = z_stream()
        guard stowage_inflate_init2(&stream, -MAX_WBITS) == Z_OK else {
            throw .corrupt(stream.msg.map { String(cString: $0) } ?? "zlib could not start")
        }
        defer { inflateEnd(&stream) }
        let chunk = 64 << 10
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: chunk)
        var input = [UInt8](input)
        let inputCount = input.count
        return try input.withUnsafeMutableBufferPointer { (source) throws(Failure) -> Data in
            stream.next_in = source.baseAddress
            stream.avail_in = uInt(inputCount)
            while true {
                let (status, produced) = buffer.withUnsafeMutableBufferPointer { target -> (Int32, Int) in
                    stream.next_out = target.baseAddress
                    stream.avail_out = uInt(chunk)
                    let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return (status, chunk - Int(stream.avail_out))
                }
                guard output.count + produced <= limit else { throw .tooLarge(limit: limit) }
                output.append(contentsOf: buffer[0..<produced])
                switch status {
                case Z_STREAM_END:
                    return output
                case Z_OK:
                    // No progress with all input consumed and room left: the stream is truncated.
                    if produced == 0 && stream.avail_in == 0 { throw .corrupt("the stream ends early") }
                case Z_BUF_ERROR:
                    if stream.avail_in == 0 { throw .corrupt("the stream ends early") }
                default:
                    throw .corrupt(stream.msg.map { String(cString: $0) } ?? "zlib error \(status)")
                }
            }
        }
    }
}
