import Foundation
internal import CXML

/// One libxml2 streaming reader (`xmlTextReader`) over bytes in memory; owns its handle and frees
/// it in `deinit`. Errors libxml2 reports go to a structured handler of this reader, never to
/// stderr, and come back as ``XMLTextReader/ParseError`` from ``read()``.
///
/// The reader is safe for untrusted input: network access is off (`XML_PARSE_NONET`), entities
/// are not substituted and no DTD is loaded (no `NOENT`, `DTDLOAD`, `DTDATTR`, `DTDVALID`), the
/// document's encoding declaration is ignored (the bytes must be UTF-8) and the process-wide
/// external entity loader refuses everything (``XMLParserSetup``).
///
/// For example:
///
/// ```swift
/// try bytes.withUnsafeBytes { buffer in
///     let reader = try XMLTextReader(buffer)
///     while try reader.read() { if reader.nodeType == .element { … } }
/// }
/// ```
final class XMLTextReader {
    /// The kinds of node the reader stops on (libxml2's `xmlReaderTypes`).
    enum NodeType: Int32 {
        case none = 0, element = 1, attribute = 2, text = 3, cdata = 4, entityReference = 5, entity = 6
        case processingInstruction = 7, comment = 8, document = 9, documentType = 10, documentFragment = 11
        case notation = 12, whitespace = 13, significantWhitespace = 14, endElement = 15, endEntity = 16
        case xmlDeclaration = 17
    }

    /// The first error libxml2 reported, with its position.
    struct ParseError: Error {
        let message: String
        let line: Int
        let code: Int32
    }

    /// The parser options: see the type's documentation.
    static let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_IGNORE_ENC.rawValue | XML_PARSE_HUGE.rawValue | XML_PARSE_NOBLANKS.rawValue)

    private let handle: xmlTextReaderPtr
    private let sink = XMLErrorSink()

    /// Opens a reader over `bytes`, which must stay valid until the reader is released.
    init(_ bytes: UnsafeRawBufferPointer) throws(ParseError) {
        XMLParserSetup.ensure()
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self), let count = Int32(exactly: bytes.count),
            let handle = xmlReaderForMemory(base, count, nil, "UTF-8", Self.options)
        else {
            throw ParseError(message: "libxml2 could not open a reader over \(bytes.count) bytes", line: 0, code: -1)
        }
        self.handle = handle
        xmlTextReaderSetStructuredErrorHandler(handle, recordXMLError, Unmanaged.passUnretained(sink).toOpaque())
    }

    deinit {
        xmlFreeTextReader(handle)
    }

    /// Moves to the next node; `false` at the end of the document.
    ///
    /// - Throws: ``ParseError`` for a document that is not well-formed.
    func read() throws(ParseError) -> Bool {
        let result = xmlTextReaderRead(handle)
        if let error = sink.first { throw error }
        if result < 0 { throw ParseError(message: "the document is not well-formed XML", line: line, code: -1) }
        return result == 1
    }

    /// Skips the current node's subtree; `false` at the end of the document.
    func skipSubtree() throws(ParseError) -> Bool {
        let result = xmlTextReaderNext(handle)
        if let error = sink.first { throw error }
        if result < 0 { throw ParseError(message: "the document is not well-formed XML", line: line, code: -1) }
        return result == 1
    }

    var nodeType: NodeType { NodeType(rawValue: xmlTextReaderNodeType(handle)) ?? .none }
    var depth: Int { Int(xmlTextReaderDepth(handle)) }
    var isEmptyElement: Bool { xmlTextReaderIsEmptyElement(handle) == 1 }
    /// The line of the current node (1-based), for error messages; the parser's line when the
    /// node has none (the parser reads ahead, so that one may be later).
    var line: Int {
        if let node = xmlTextReaderCurrentNode(handle) {
            let line = xmlGetLineNo(node)
            if line > 0 { return line }
        }
        return Int(xmlTextReaderGetParserLineNumber(handle))
    }

    /// The current node's local name, interned in the reader's dictionary: equal names are the
    /// same pointer as ``interned(_:)`` returns, so names compare by address.
    var localName: UnsafePointer<UInt8>? { xmlTextReaderConstLocalName(handle) }
    /// The current node's (text or attribute) value, NUL-terminated, valid until the reader moves.
    var value: UnsafePointer<UInt8>? { xmlTextReaderConstValue(handle) }

    /// The current node's value as bytes (empty when it has none), valid until the reader moves.
    var valueBytes: UnsafeBufferPointer<UInt8> {
        guard let value else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: value, count: strlen(UnsafeRawPointer(value).assumingMemoryBound(to: CChar.self)))
    }

    /// Moves to the current element's next attribute; `false` when there is none.
    func moveToNextAttribute() -> Bool { xmlTextReaderMoveToNextAttribute(handle) == 1 }
    /// Moves back from an attribute to its element.
    func moveToElement() { _ = xmlTextReaderMoveToElement(handle) }

    /// `name` as interned in this reader's dictionary (compare ``localName`` with it by address).
    func interned(_ name: String) -> UnsafePointer<UInt8>? {
        xmlTextReaderConstString(handle, name)
    }
}

/// The structured error handler: keeps the first error (warnings are ignored).
private func recordXMLError(_ context: UnsafeMutableRawPointer?, _ error: xmlErrorPtr?) {
    guard let context, let error, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
    let sink = Unmanaged<XMLErrorSink>.fromOpaque(context).takeUnretainedValue()
    guard sink.first == nil else { return }
    var message = error.pointee.message.map { String(cString: $0) } ?? "XML error \(error.pointee.code)"
    while message.last?.isWhitespace == true { message.removeLast() }
    sink.first = XMLTextReader.ParseError(message: message, line: Int(error.pointee.line), code: error.pointee.code)
}

/// Collects the first error libxml2 reports for one reader (passed to libxml2 unretained; the
/// reader owns it and outlives its handle).
final class XMLErrorSink {
    var first: XMLTextReader.ParseError?
}
