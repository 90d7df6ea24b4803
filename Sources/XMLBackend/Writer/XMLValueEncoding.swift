import Foundation
import StoreCore

/// Appends the text of a value, escaped for XML element content, to a buffer.
///
/// Integers in decimal; booleans `1`/`0`; doubles and floats in the shortest form that reads back
/// to the same value (`nan`, `inf`, `-inf` for the special values); decimals with their exact
/// digits; dates as seconds since 2001-01-01 (shortest round-trip form); data and transformable
/// values in base64; UUIDs upper-case with dashes; URIs and object IDs as absolute URIs.
///
/// A string holding a character XML 1.0 cannot hold (U+0000–U+001F other than tab, line feed and
/// carriage return, U+FFFE, U+FFFF) is refused with ``/StoreCore/StoreError`` (`invalidOption`)
/// naming the attribute: no file is written that no XML parser could read. Carriage returns are
/// written as `&#13;` so they survive line-end normalisation.
///
/// For example:
///
/// ```swift
/// try XMLValueEncoding.append(.double(0.1), as: .double, to: buffer)   // "0.1"
/// ```
enum XMLValueEncoding {
    static func append(_ value: StoreValue, as kind: XMLAttributeKind, to buffer: XMLTextBuffer) throws(XMLValueEncodingError) {
        switch value {
        case .null: return
        case .integer(let integer):
            if kind == .bool { buffer.append(integer == 0 ? UInt8(ascii: "0") : UInt8(ascii: "1")) } else { buffer.append(String(integer)) }
        case .boolean(let flag): buffer.append(flag ? UInt8(ascii: "1") : UInt8(ascii: "0"))
        case .double(let number):
            if kind == .float { buffer.append(Float(number).description) } else { buffer.append(number.description) }
        case .float(let number):
            if kind == .float { buffer.append(number.description) } else { buffer.append(Double(number).description) }
        case .decimal(let number): buffer.append(number.description)
        case .string(let text): try appendEscaped(text, to: buffer)
        case .date(let date): buffer.append(date.timeIntervalSinceReferenceDate.description)
        case .data(let data): buffer.append(data.base64EncodedData())
        case .uuid(let uuid): buffer.append(uuid.uuidString)
        case .uri(let url): try appendEscaped(url.absoluteString, to: buffer)
        case .objectID(let id): try appendEscaped(id.uriRepresentation.absoluteString, to: buffer)
        }
    }

    /// `text` with `&`, `<`, `>` and carriage returns escaped.
    static func appendEscaped(_ text: String, to buffer: XMLTextBuffer) throws(XMLValueEncodingError) {
        var text = text
        let refused: XMLValueEncodingError? = text.withUTF8 { bytes in
            var start = 0
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                let replacement: StaticString?
                switch byte {
                case UInt8(ascii: "&"): replacement = "&amp;"
                case UInt8(ascii: "<"): replacement = "&lt;"
                case UInt8(ascii: ">"): replacement = "&gt;"
                case 0x0D: replacement = "&#13;"
                case 0x09, 0x0A: replacement = nil
                case 0x00..<0x20: return XMLValueEncodingError(character: UInt32(byte))
                case 0xEF where index + 2 < bytes.count && bytes[index + 1] == 0xBF && (bytes[index + 2] == 0xBE || bytes[index + 2] == 0xBF):
                    return XMLValueEncodingError(character: 0xFFFE + UInt32(bytes[index + 2] - 0xBE))
                default: replacement = nil
                }
                if let replacement {
                    buffer.append(UnsafeBufferPointer(rebasing: bytes[start..<index]))
                    buffer.append(UnsafeBufferPointer(start: replacement.utf8Start, count: replacement.utf8CodeUnitCount))
                    start = index + 1
                }
                index += 1
            }
            buffer.append(UnsafeBufferPointer(rebasing: bytes[start..<bytes.count]))
            return nil
        }
        if let refused { throw refused }
    }
}

/// A string holds a character XML 1.0 cannot represent.
struct XMLValueEncodingError: Error {
    let character: UInt32

    var characterName: String { String(format: "U+%04X", character) }
}
