import Foundation
internal import CXML

/// One element of a model file, copied out of libxml2's tree: its name, attributes in document
/// order, child elements, text and line — so the readers work on Swift values and the C tree is
/// freed as soon as the file is parsed.
///
/// For example, `<entry key="a" value="b"/>` on line 12:
///
/// ```swift
/// element.name                 // "entry"
/// element.attribute("key")     // "a"
/// element.line                 // 12
/// ```
struct ModelXMLElement: Sendable {
    let name: String
    let attributes: [(name: String, value: String)]
    let children: [ModelXMLElement]
    /// The element's own text (text and CDATA children, concatenated).
    let text: String
    let line: Int

    func attribute(_ name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }

    /// Parses `data` (the bytes of `url`, named in errors) with libxml2 and returns its root.
    ///
    /// Safe for files from elsewhere: no network (`XML_PARSE_NONET`), no entity substitution, no
    /// DTD loading, a deny-all external entity loader, and documents that declare anything in an
    /// internal DTD subset or refer to an entity are refused. libxml2's messages never reach stderr.
    static func parse(_ data: Data, url: URL) throws(ModelFileError) -> ModelXMLElement {
        ModelXMLSetup.ensure()
        guard let length = Int32(exactly: data.count) else {
            throw ModelFileError(.malformed, url: url, "the file is too large to be a model file")
        }
        guard let context = xmlNewParserCtxt() else {
            throw ModelFileError(.malformed, url: url, "libxml2 could not create a parser")
        }
        defer { xmlFreeParserCtxt(context) }
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOBLANKS.rawValue | XML_PARSE_NOCDATA.rawValue)
        var saved = stowage_xml_error_handlers()
        stowage_xml_silence_errors(&saved)
        // The first error libxml2 reports is the one that names the real problem.
        let sink = ModelXMLErrorSink()
        xmlSetStructuredErrorFunc(Unmanaged.passUnretained(sink).toOpaque(), recordFirstModelXMLError)
        let document: xmlDocPtr? = data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress?.assumingMemoryBound(to: CChar.self) else { return nil }
            return xmlCtxtReadMemory(context, base, length, nil, nil, options)
        }
        stowage_xml_restore_errors(&saved)
        withExtendedLifetime(sink) {}
        if let first = sink.first {
            if let document { xmlFreeDoc(document) }
            throw ModelFileError(.malformed, url: url, line: first.line, "not well-formed XML: \(first.message)")
        }
        guard let document else {
            if data.isEmpty { throw ModelFileError(.malformed, url: url, line: 1, "the file is empty") }
            if let error = xmlCtxtGetLastError(context) {
                var message = error.pointee.message.map { String(cString: $0) } ?? "XML error \(error.pointee.code)"
                while message.last?.isWhitespace == true { message.removeLast() }
                throw ModelFileError(.malformed, url: url, line: Int(error.pointee.line), "not well-formed XML: \(message)")
            }
            throw ModelFileError(.malformed, url: url, "not well-formed XML")
        }
        defer { xmlFreeDoc(document) }
        if let subset = document.pointee.intSubset, subset.pointee.children != nil {
            throw ModelFileError(.malformed, url: url, line: Int(xmlGetLineNo(UnsafeMutableRawPointer(subset).assumingMemoryBound(to: xmlNode.self))),
                "the document declares entities or other DTD content; model files have none and entities are never expanded")
        }
        guard let root = xmlDocGetRootElement(document) else {
            throw ModelFileError(.malformed, url: url, line: 1, "the document has no root element")
        }
        return try copy(root, url: url, depth: 0)
    }

    private static func copy(_ node: xmlNodePtr, url: URL, depth: Int) throws(ModelFileError) -> ModelXMLElement {
        let line = xmlGetLineNo(node)
        guard depth < 64 else {
            throw ModelFileError(.malformed, url: url, line: line, "elements are nested more than 64 deep; model files are shallow")
        }
        var attributes: [(name: String, value: String)] = []
        var attribute = node.pointee.properties
        while let current = attribute {
            var value = ""
            var child = current.pointee.children
            while let part = child {
                if part.pointee.type == XML_ENTITY_REF_NODE {
                    throw ModelFileError(.malformed, url: url, line: line, "an attribute refers to an entity; entities are never expanded")
                }
                if let content = part.pointee.content { value += String(cString: content) }
                child = part.pointee.next
            }
            attributes.append((String(cString: current.pointee.name), value))
            attribute = current.pointee.next
        }
        var children: [ModelXMLElement] = []
        var text = ""
        var child = node.pointee.children
        while let current = child {
            switch current.pointee.type {
            case XML_ELEMENT_NODE:
                children.append(try copy(current, url: url, depth: depth + 1))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = current.pointee.content { text += String(cString: content) }
            case XML_ENTITY_REF_NODE:
                throw ModelFileError(.malformed, url: url, line: xmlGetLineNo(current), "the document refers to an entity; entities are never expanded")
            default:
                break
            }
            child = current.pointee.next
        }
        return ModelXMLElement(name: String(cString: node.pointee.name), attributes: attributes, children: children, text: text, line: line)
    }
}

/// Keeps the first error libxml2 reports while one model file is parsed (passed to libxml2
/// unretained; the parse function keeps it alive until the handler is removed).
private final class ModelXMLErrorSink {
    var first: (message: String, line: Int)?
}

/// The structured error handler: records the first error (warnings are ignored).
private func recordFirstModelXMLError(_ context: UnsafeMutableRawPointer?, _ error: xmlErrorPtr?) {
    guard let context, let error, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
    let sink = Unmanaged<ModelXMLErrorSink>.fromOpaque(context).takeUnretainedValue()
    guard sink.first == nil else { return }
    var message = error.pointee.message.map { String(cString: $0) } ?? "XML error \(error.pointee.code)"
    while message.last?.isWhitespace == true { message.removeLast() }
    sink.first = (message, Int(error.pointee.line))
}

/// Process-wide libxml2 setup for model files, done once: the parser's global tables and an
/// external entity loader that refuses everything (the same policy as the XML store's reader).
enum ModelXMLSetup {
    private static let done: Bool = {
        xmlInitParser()
        xmlSetExternalEntityLoader(denyExternalEntity)
        return true
    }()

    static func ensure() { _ = done }
}

/// The deny-all external entity loader: returns no input for any URL or public identifier.
private func denyExternalEntity(
    _ url: UnsafePointer<CChar>?, _ identifier: UnsafePointer<CChar>?, _ context: xmlParserCtxtPtr?
) -> xmlParserInputPtr? {
    nil
}
