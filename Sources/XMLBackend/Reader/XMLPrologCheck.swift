import Foundation
import StoreCore

/// Checks a document's prolog — everything before the root element — before libxml2 sees it.
///
/// Entity declarations can only appear in a DOCTYPE's internal subset (`<!DOCTYPE x [ … ]>`), so
/// refusing every internal subset refuses every entity declaration: external entities, billion
/// laughs and quadratic blow-up are turned away without being parsed. The one DOCTYPE accepted is
/// the one Core Data writes, `<!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">`
/// (or `<!DOCTYPE database>`); its DTD is never loaded.
///
/// For example:
///
/// ```swift
/// try XMLPrologCheck.check(bytes)   // throws StoreError(.corrupt) for <!DOCTYPE x [<!ENTITY …>]>
/// ```
///
/// Complexity: O(n) in the prolog's length.
enum XMLPrologCheck {
    /// The system identifier of Core Data's DTD, which its XML stores name.
    static let coreDataSystemID = "file:///System/Library/DTDs/CoreData.dtd"

    /// Checks the prolog and that the root element is `<database>`.
    ///
    /// - Throws: ``/StoreCore/StoreError`` with `wrongFormat` when the document does not start
    ///   (after its prolog) with `<database`: not XML, another encoding than UTF-8, another root.
    static func check(_ bytes: UnsafeRawBufferPointer) throws(StoreError) {
        var scanner = Scanner(bytes: bytes)
        if scanner.starts(with: [0xEF, 0xBB, 0xBF]) { scanner.position += 3 }
        while true {
            scanner.skipWhitespace()
            if scanner.starts(with: Array("<?".utf8)) {
                try scanner.skip(past: Array("?>".utf8), what: "processing instruction")
            } else if scanner.starts(with: Array("<!--".utf8)) {
                try scanner.skip(past: Array("-->".utf8), what: "comment")
            } else if scanner.starts(with: Array("<!DOCTYPE".utf8)) {
                scanner.position += 9
                try checkDoctype(&scanner)
            } else if scanner.starts(with: Array("<database".utf8)) {
                let next = scanner.position + 9
                guard next < bytes.count, [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/")].contains(bytes[next]) else {
                    throw StoreError(.wrongFormat, "not a Core Data XML store: the root element is not <database>")
                }
                return
            } else {
                throw StoreError(.wrongFormat, "not a Core Data XML store: the document (UTF-8 XML) does not start with a <database> element")
            }
        }
    }

    private static func checkDoctype(_ scanner: inout Scanner) throws(StoreError) {
        // Everything up to the closing '>', outside quoted literals; an internal subset opens with '['.
        var words: [String] = []
        var word: [UInt8] = []
        while let byte = scanner.next() {
            switch byte {
            case UInt8(ascii: ">"):
                if !word.isEmpty { words.append(String(decoding: word, as: UTF8.self)) }
                return try checkDoctypeWords(words)
            case UInt8(ascii: "["):
                throw StoreError(
                    .corrupt,
                    "the document's DOCTYPE has an internal subset (entity or other declarations), which an XML store never has; refused without parsing it, so no entity is expanded and no external file or URL is read")
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                guard let literal = scanner.literal(closingWith: byte) else {
                    throw StoreError(.truncated, "the document ends inside its DOCTYPE")
                }
                words.append(String(decoding: literal, as: UTF8.self))
            case 0x20, 0x09, 0x0A, 0x0D:
                if !word.isEmpty { words.append(String(decoding: word, as: UTF8.self)) }
                word.removeAll()
            default:
                word.append(byte)
                if word.count > 256 { throw StoreError(.corrupt, "the document's DOCTYPE is not one an XML store has") }
            }
        }
        throw StoreError(.truncated, "the document ends inside its DOCTYPE")
    }

    private static func checkDoctypeWords(_ words: [String]) throws(StoreError) {
        guard words.first == "database" else {
            throw StoreError(.wrongFormat, "the document's DOCTYPE names '\(words.first ?? "")', not 'database': it is not a Core Data XML store")
        }
        switch words.count {
        case 1: return
        case 3 where words[1] == "SYSTEM" && words[2] == coreDataSystemID: return
        default:
            throw StoreError(
                .corrupt,
                "the document's DOCTYPE refers to an external DTD (\(words.dropFirst().joined(separator: " "))); only Core Data's own (\(coreDataSystemID)) is accepted, and no DTD is ever loaded")
        }
    }

    private struct Scanner {
        let bytes: UnsafeRawBufferPointer
        var position = 0

        var atEnd: Bool { position >= bytes.count }

        func starts(with prefix: [UInt8]) -> Bool {
            guard bytes.count - position >= prefix.count else { return false }
            for (offset, byte) in prefix.enumerated() where bytes[position + offset] != byte { return false }
            return true
        }

        mutating func next() -> UInt8? {
            guard position < bytes.count else { return nil }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func skipWhitespace() {
            while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
        }

        mutating func skip(past terminator: [UInt8], what: String) throws(StoreError) {
            while position < bytes.count {
                if starts(with: terminator) {
                    position += terminator.count
                    return
                }
                position += 1
            }
            throw StoreError(.truncated, "the document ends inside a \(what) before its root element")
        }

        /// The bytes up to the closing quote (consumed), or `nil` at the end of the input.
        mutating func literal(closingWith quote: UInt8) -> [UInt8]? {
            var result: [UInt8] = []
            while let byte = next() {
                if byte == quote { return result }
                result.append(byte)
            }
            return nil
        }
    }
}
