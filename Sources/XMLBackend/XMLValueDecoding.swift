import Foundation
import StoreCore
internal import CXML

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns the text of an `<attribute>` element into a value of the model's attribute type.
///
/// Numbers are parsed from the bytes (no `String` per value); floating-point text goes through
/// `strtod`/`strtof` under the C locale. Dates are seconds since 2001-01-01 (what Core Data writes),
/// or ISO 8601 with or without fractional seconds. Returns `nil` for text that is not a value of
/// the type; the caller reports where.
///
/// For example:
///
/// ```swift
/// var decoder = XMLValueDecoding()
/// decoder.value(of: .int16, from: bytes)   // .integer(1024) for "1024"
/// ```
struct XMLValueDecoding {
    /// The C locale, so that `strtod` reads a '.' whatever locale the application set.
    private nonisolated(unsafe) static let cLocale = stowage_c_locale()

    /// `bytes` must be followed by a NUL byte (libxml2's values are; so is the reader's buffer).
    func value(of kind: XMLAttributeKind, from bytes: UnsafeBufferPointer<UInt8>) -> StoreValue? {
        switch kind {
        case .int16, .int32, .int64:
            if let integer = Self.integer(bytes) { return .integer(integer) }
            return Self.boolean(bytes).map { .integer($0 ? 1 : 0) }
        case .bool:
            return Self.boolean(bytes).map(StoreValue.boolean)
        case .double:
            return Self.double(bytes).map(StoreValue.double)
        case .float:
            return Self.float(bytes).map(StoreValue.float)
        case .decimal:
            return Self.decimal(bytes).map(StoreValue.decimal)
        case .string:
            return .string(String(decoding: bytes, as: UTF8.self))
        case .date:
            return Self.date(bytes).map(StoreValue.date)
        case .binary, .transformable:
            return Self.base64(bytes).map(StoreValue.data)
        case .uuid:
            return UUID(uuidString: String(decoding: Self.trimmed(bytes), as: UTF8.self)).map(StoreValue.uuid)
        case .uri:
            let text = String(decoding: Self.trimmed(bytes), as: UTF8.self)
            guard !text.isEmpty, let url = URL(string: text) else { return nil }
            return .uri(url)
        case .objectID:
            let text = String(decoding: Self.trimmed(bytes), as: UTF8.self)
            guard let url = URL(string: text), let id = ManagedObjectID(uriRepresentation: url) else { return nil }
            return .objectID(id)
        }
    }

    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D }

    static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var start = 0
        var end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[start..<end])
    }

    /// A decimal integer with an optional sign, surrounded by optional whitespace; `nil` on overflow.
    static func integer(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        let digits = trimmed(bytes)
        guard !digits.isEmpty else { return nil }
        var index = 0
        var negative = false
        if digits[0] == UInt8(ascii: "-") || digits[0] == UInt8(ascii: "+") {
            negative = digits[0] == UInt8(ascii: "-")
            index = 1
        }
        guard index < digits.count else { return nil }
        var magnitude: UInt64 = 0
        while index < digits.count {
            let digit = digits[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit))
            guard !overflow1, !overflow2 else { return nil }
            magnitude = sum
            index += 1
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(truncatingIfNeeded: magnitude)
        }
        return Int64(exactly: magnitude)
    }

    /// `1`/`0` (what Core Data writes), `true`/`false`, `YES`/`NO`.
    static func boolean(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
        let text = trimmed(bytes)
        if text.count == 1 {
            if text[0] == UInt8(ascii: "1") { return true }
            if text[0] == UInt8(ascii: "0") { return false }
            return nil
        }
        switch String(decoding: text, as: UTF8.self).lowercased() {
        case "true", "yes": return true
        case "false", "no": return false
        default: return nil
        }
    }

    /// Runs a C conversion over the trimmed text, which must consume all of it.
    private static func convert<T>(
        _ bytes: UnsafeBufferPointer<UInt8>,
        _ body: (UnsafePointer<CChar>, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> T
    ) -> T? {
        let text = trimmed(bytes)
        guard let start = text.baseAddress, !text.isEmpty, text.count < 400 else { return nil }
        // strtod stops at the first byte it cannot use; the text after the trimmed part is
        // whitespace or the terminating NUL, so it never reads past the value.
        let previous = uselocale(cLocale)
        defer { uselocale(previous) }
        return start.withMemoryRebound(to: CChar.self, capacity: text.count) { characters -> T? in
            var end: UnsafeMutablePointer<CChar>?
            let result = body(characters, &end)
            guard let end, UnsafePointer(end) - characters == text.count else { return nil }
            return result
        }
    }

    /// Decimal or exponent notation; `nan`, `inf`, `-inf` (and `infinity`, any case).
    static func double(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        convert(bytes) { strtod($0, $1) }
    }

    static func float(_ bytes: UnsafeBufferPointer<UInt8>) -> Float? {
        convert(bytes) { strtof($0, $1) }
    }

    /// The exact digits: `-123.4500`, `1e-7`; `NaN` for Decimal's not-a-number.
    static func decimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Decimal? {
        let text = trimmed(bytes)
        guard !text.isEmpty, text.count < 400 else { return nil }
        if text.count == 3, String(decoding: text, as: UTF8.self).lowercased() == "nan" { return .nan }
        // Validate the whole text: Decimal(string:) accepts a valid prefix and ignores the rest.
        var index = 0
        func digits() -> Int {
            let start = index
            while index < text.count, text[index] &- UInt8(ascii: "0") < 10 { index += 1 }
            return index - start
        }
        if text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") { index += 1 }
        var count = digits()
        if index < text.count, text[index] == UInt8(ascii: ".") {
            index += 1
            count += digits()
        }
        guard count > 0 else { return nil }
        if index < text.count, text[index] == UInt8(ascii: "e") || text[index] == UInt8(ascii: "E") {
            index += 1
            if index < text.count, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") { index += 1 }
            guard digits() > 0 else { return nil }
        }
        guard index == text.count else { return nil }
        return Decimal(string: String(decoding: text, as: UTF8.self), locale: Locale(identifier: "en_US_POSIX"))
    }

    /// Seconds since 2001-01-01 (Core Data's form), or ISO 8601.
    static func date(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        if let seconds = double(bytes) {
            return seconds.isFinite ? Date(timeIntervalSinceReferenceDate: seconds) : nil
        }
        let text = String(decoding: trimmed(bytes), as: UTF8.self)
        guard text.count < 64 else { return nil }
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle())
    }

    /// Base64, ignoring whitespace (Core Data wraps long data in lines); `nil` for other bytes.
    static func base64(_ bytes: UnsafeBufferPointer<UInt8>) -> Data? {
        if !bytes.contains(where: isSpace) { return Data(base64Encoded: Data(buffer: bytes)) }
        var compact = Data(capacity: bytes.count)
        for byte in bytes where !isSpace(byte) { compact.append(byte) }
        return Data(base64Encoded: compact)
    }
}
