import Foundation
import StoreCore

/// Walks a document's elements through an ``XMLTextReader`` for the store and property-list
/// readers: element starts and ends only (whitespace, comments and processing instructions are
/// skipped), the text of an element gathered into one buffer, and every problem turned into a
/// ``/StoreCore/StoreError`` that names the line.
///
/// For example:
///
/// ```swift
/// while case .start(let name, let isEmpty)? = try cursor.next() {
///     if name == names.object { … } else { try cursor.skip(isEmpty: isEmpty) }
/// }
/// ```
final class XMLNodeCursor {
    enum Event {
        /// An element starts; an empty element (`<a/>`) has no matching ``end``.
        case start(name: UnsafePointer<UInt8>?, isEmpty: Bool)
        case end
    }

    let reader: XMLTextReader
    private let document: UnsafeRawBufferPointer
    private let buffer = XMLTextBuffer()

    init(document: UnsafeRawBufferPointer) throws(StoreError) {
        self.document = document
        do {
            reader = try XMLTextReader(document)
        } catch {
            throw StoreError(.io, error.message)
        }
    }

    /// An error at the reader's current line.
    func error(_ code: StoreError.Code, _ message: String) -> StoreError {
        StoreError(code, "line \(reader.line): \(message)")
    }

    /// libxml2's error as a store error: on the document's last line it ended early (truncated).
    /// (Bytes that are not XML at all were refused before parsing, by ``XMLPrologCheck``.)
    private func convert(_ error: XMLTextReader.ParseError) -> StoreError {
        let text = "line \(error.line): \(error.message)"
        if error.line >= lastLine { return StoreError(.truncated, "the file ends before its contents do: \(text)") }
        return StoreError(.corrupt, "not well-formed XML: \(text)")
    }

    private var lastLine: Int {
        var trimmedCount = document.count
        while trimmedCount > 0, XMLValueDecoding.isSpace(document[trimmedCount - 1]) { trimmedCount -= 1 }
        return 1 + document.prefix(trimmedCount).reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    }

    private func advance() throws(StoreError) -> Bool {
        do {
            return try reader.read()
        } catch {
            throw convert(error)
        }
    }

    /// The next element start or end, or `nil` at the end of the document.
    ///
    /// - Throws: for text outside an element's value, entity references, or bad XML.
    func next() throws(StoreError) -> Event? {
        while try advance() {
            switch reader.nodeType {
            case .element:
                return .start(name: reader.localName, isEmpty: reader.isEmptyElement)
            case .endElement:
                return .end
            case .whitespace, .significantWhitespace, .comment, .processingInstruction, .documentType, .xmlDeclaration:
                continue
            case .entityReference, .entity, .endEntity:
                throw error(.corrupt, "the document refers to an entity; an XML store has none, and entities are never expanded")
            case .text, .cdata:
                if reader.valueBytes.allSatisfy(XMLValueDecoding.isSpace) { continue }
                throw error(.corrupt, "unexpected text between elements")
            default:
                throw error(.corrupt, "unexpected XML node")
            }
        }
        return nil
    }

    /// The text of the element that just started (`isEmpty` as ``next()`` said), with the reader
    /// left on its end; valid until the next call. Child elements are refused.
    func text(isEmpty: Bool) throws(StoreError) -> UnsafeBufferPointer<UInt8> {
        buffer.removeAll()
        guard !isEmpty else { return buffer.bytes }
        while try advance() {
            switch reader.nodeType {
            case .text, .cdata, .whitespace, .significantWhitespace:
                buffer.append(reader.valueBytes)
            case .comment, .processingInstruction:
                continue
            case .endElement:
                return buffer.bytes
            case .entityReference, .entity, .endEntity:
                throw error(.corrupt, "the document refers to an entity; an XML store has none, and entities are never expanded")
            default:
                throw error(.corrupt, "an element inside a value, where only text belongs")
            }
        }
        throw StoreError(.truncated, "the file ends inside an element")
    }

    /// Skips the rest of the element that just started, its children included.
    func skip(isEmpty: Bool) throws(StoreError) {
        guard !isEmpty else { return }
        var depth = 1
        while depth > 0 {
            guard let event = try next() else { throw StoreError(.truncated, "the file ends inside an element") }
            switch event {
            case .start(_, let isEmpty): if !isEmpty { depth += 1 }
            case .end: depth -= 1
            }
        }
    }

    /// Calls `body` with the name and value of each attribute of the element that just started,
    /// then returns the reader to the element. The value is valid only during the call.
    func forEachAttribute(_ body: (UnsafePointer<UInt8>?, UnsafeBufferPointer<UInt8>) throws(StoreError) -> Void) throws(StoreError) {
        defer { reader.moveToElement() }
        while reader.moveToNextAttribute() {
            try body(reader.localName, reader.valueBytes)
        }
    }
}
