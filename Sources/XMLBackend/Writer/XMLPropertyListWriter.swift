import Foundation
import StoreCore

/// Writes a ``PropertyListValue`` as an XML property list (`<plist version="1.0">`), the form of
/// the store metadata: dictionary keys sorted, dates in ISO 8601 (UTC, fractional seconds when
/// there are any), data in base64, and a `uid` as `<dict><key>CF$UID</key><integer>n</integer></dict>`
/// as Apple's XML property lists write it.
///
/// For example:
///
/// ```swift
/// try XMLPropertyListWriter(writer: writer, pool: pool, buffer: buffer).writePlist(.dictionary(metadata))
/// ```
struct XMLPropertyListWriter {
    let writer: XMLTextWriter
    let pool: XMLNamePool
    let buffer: XMLTextBuffer

    func writePlist(_ value: PropertyListValue) throws(StoreError) {
        try writer.startElement(pool["plist"])
        try writer.attribute(pool["version"], pool["1.0"])
        try write(value)
        try writer.endElement()
    }

    private func write(_ value: PropertyListValue) throws(StoreError) {
        switch value {
        case .dictionary(let entries):
            try writer.startElement(pool["dict"])
            for key in entries.keys.sorted() {
                try element("key") { () throws(StoreError) in try escaped(key, what: "a metadata key") }
                if let entry = entries[key] { try write(entry) }
            }
            try writer.fullEndElement()
        case .array(let elements):
            try writer.startElement(pool["array"])
            for element in elements { try write(element) }
            try writer.fullEndElement()
        case .string(let text):
            try element("string") { () throws(StoreError) in try escaped(text, what: "a metadata string") }
        case .integer(let number):
            try element("integer") { buffer.append(String(number)) }
        case .real(let number):
            try element("real") { buffer.append(number.description) }
        case .boolean(let flag):
            try writer.startElement(pool[flag ? "true" : "false"])
            try writer.endElement()
        case .date(let date):
            let seconds = date.timeIntervalSinceReferenceDate
            let style = Date.ISO8601FormatStyle(includingFractionalSeconds: seconds.rounded() != seconds)
            try element("date") { buffer.append(date.formatted(style)) }
        case .data(let data):
            try element("data") { buffer.append(data.base64EncodedData()) }
        case .uid(let uid):
            try write(.dictionary(["CF$UID": .integer(Int64(truncatingIfNeeded: uid))]))
        }
    }

    /// An element whose text `fill` puts into the buffer.
    private func element(_ name: String, _ fill: () throws(StoreError) -> Void) throws(StoreError) {
        buffer.removeAll()
        try fill()
        try writer.startElement(pool[name])
        try writer.raw(buffer.bytes)
        try writer.fullEndElement()
    }

    private func escaped(_ text: String, what: String) throws(StoreError) {
        do {
            try XMLValueEncoding.appendEscaped(text, to: buffer)
        } catch {
            throw StoreError(.invalidOption, "\(what) holds \(error.characterName), a character XML 1.0 cannot hold; nothing was saved")
        }
    }
}
