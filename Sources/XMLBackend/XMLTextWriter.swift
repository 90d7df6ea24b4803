import Foundation
import StoreCore
internal import CXML

/// One libxml2 text writer (`xmlTextWriter`) writing into memory, indented with four spaces as
/// Core Data's files are; owns its handle and frees it in `deinit`. Every failed call becomes a
/// ``/StoreCore/StoreError`` with code `io`.
///
/// Names are passed as NUL-terminated bytes (``XMLNamePool``) so that writing an element makes no
/// `String`; text the caller has escaped goes through ``raw(_:)``.
///
/// For example:
///
/// ```swift
/// let writer = try XMLTextWriter()
/// try writer.startDocument()
/// try writer.startElement(pool["database"])
/// try writer.endElement()
/// let data = try writer.finish()
/// ```
final class XMLTextWriter {
    private let handle: xmlTextWriterPtr
    private let sink = XMLOutputSink()

    init() throws(StoreError) {
        XMLParserSetup.ensure()
        let context = Unmanaged.passUnretained(sink).toOpaque()
        guard let output = xmlOutputBufferCreateIO(writeToSink, closeSink, context, nil) else {
            throw StoreError(.io, "libxml2 could not create an output buffer")
        }
        guard let handle = xmlNewTextWriter(output) else {
            xmlOutputBufferClose(output)
            throw StoreError(.io, "libxml2 could not create a text writer")
        }
        self.handle = handle
        xmlTextWriterSetIndent(handle, 1)
        xmlTextWriterSetIndentString(handle, "    ")
    }

    deinit {
        xmlFreeTextWriter(handle)
    }

    private func check(_ result: Int32, _ what: @autoclosure () -> String) throws(StoreError) {
        if result < 0 { throw StoreError(.io, "libxml2's writer failed to write \(what())") }
    }

    /// `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`.
    func startDocument() throws(StoreError) {
        try check(xmlTextWriterStartDocument(handle, "1.0", "UTF-8", "yes"), "the XML declaration")
    }

    /// A DOCTYPE declaration, written as given on a line of its own (libxml2's own DTD writer
    /// breaks the line before `SYSTEM` when indenting).
    func doctype(_ declaration: String) throws(StoreError) {
        try check(xmlTextWriterWriteRaw(handle, declaration + "\n\n"), "the DOCTYPE")
    }

    func startElement(_ name: UnsafePointer<UInt8>) throws(StoreError) {
        try check(xmlTextWriterStartElement(handle, name), "an element")
    }

    /// An attribute of the element just started; libxml2 escapes the value.
    func attribute(_ name: UnsafePointer<UInt8>, _ value: UnsafePointer<UInt8>) throws(StoreError) {
        try check(xmlTextWriterWriteAttribute(handle, name, value), "an attribute")
    }

    /// Bytes written as they are: the caller has escaped them.
    func raw(_ bytes: UnsafeBufferPointer<UInt8>) throws(StoreError) {
        guard let base = bytes.baseAddress, let count = Int32(exactly: bytes.count), count > 0 else { return }
        try check(xmlTextWriterWriteRawLen(handle, base, count), "a value")
    }

    /// Closes the current element, as `<a/>` when it has no content.
    func endElement() throws(StoreError) {
        try check(xmlTextWriterEndElement(handle), "an end tag")
    }

    /// Closes the current element with an end tag even when it has no content (`<a></a>`).
    func fullEndElement() throws(StoreError) {
        try check(xmlTextWriterFullEndElement(handle), "an end tag")
    }

    /// Ends the document and returns every byte written.
    func finish() throws(StoreError) -> Data {
        try check(xmlTextWriterEndDocument(handle), "the end of the document")
        try check(xmlTextWriterFlush(handle), "the document")
        return sink.data
    }
}

/// Where the writer's output buffer sends its bytes (passed to libxml2 unretained; the writer
/// owns it and outlives its handle).
final class XMLOutputSink {
    var data = Data()
}

private func writeToSink(_ context: UnsafeMutableRawPointer?, _ buffer: UnsafePointer<CChar>?, _ length: Int32) -> Int32 {
    guard let context, let buffer, length >= 0 else { return -1 }
    let sink = Unmanaged<XMLOutputSink>.fromOpaque(context).takeUnretainedValue()
    sink.data.append(UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: Int(length))
    return length
}

private func closeSink(_ context: UnsafeMutableRawPointer?) -> Int32 { 0 }

/// NUL-terminated copies of the names a write uses, made once per write and freed with the pool.
///
/// For example:
///
/// ```swift
/// let pool = XMLNamePool()
/// try writer.startElement(pool["object"])
/// ```
final class XMLNamePool {
    private var names: [String: UnsafeMutablePointer<UInt8>] = [:]

    deinit {
        for pointer in names.values { pointer.deallocate() }
    }

    subscript(_ name: String) -> UnsafePointer<UInt8> {
        if let pointer = names[name] { return UnsafePointer(pointer) }
        let bytes = Array(name.utf8)
        let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count + 1)
        pointer.initialize(from: bytes, count: bytes.count)
        pointer[bytes.count] = 0
        names[name] = pointer
        return UnsafePointer(pointer)
    }
}
