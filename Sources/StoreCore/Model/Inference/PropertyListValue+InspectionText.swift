import Foundation

extension PropertyListValue {
    /// A metadata dictionary as text for people: one entry per scalar, nested dictionaries
    /// flattened into dotted keys, data as base64 (or its size when long), arrays in brackets.
    ///
    /// For example:
    ///
    /// ```swift
    /// PropertyListValue.inspectionText(of: ["NSStoreModelVersionHashes": .dictionary(["Post": .data(hash)])])
    /// // ["NSStoreModelVersionHashes.Post": "q1w2…="]
    /// ```
    package static func inspectionText(of dictionary: [String: PropertyListValue], prefix: String = "") -> [String: String] {
        var result: [String: String] = [:]
        for (key, value) in dictionary {
            if case .dictionary(let nested) = value, !nested.isEmpty, prefix.isEmpty {
                result.merge(inspectionText(of: nested, prefix: key + ".")) { a, _ in a }
            } else {
                result[prefix + key] = value.inspectionText
            }
        }
        return result
    }

    /// The value as one line of text.
    package var inspectionText: String {
        switch self {
        case .string(let text): text
        case .integer(let number): String(number)
        case .real(let number): String(number)
        case .boolean(let flag): String(flag)
        case .date(let date): date.formatted(.iso8601)
        case .data(let data): data.count <= 48 ? data.base64EncodedString() : "<\(data.count) bytes>"
        case .array(let items):
            "[" + items.map { item in item.stringValue.map { "\"\($0)\"" } ?? item.inspectionText }.joined(separator: ", ") + "]"
        case .dictionary(let entries):
            "{" + entries.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.inspectionText)" }.joined(separator: ", ") + "}"
        case .uid(let value): "uid(\(value))"
        }
    }
}
