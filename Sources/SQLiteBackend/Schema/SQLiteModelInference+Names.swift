import Foundation
import StoreCore
import StoreSQL

/// Column names, declared types and metadata as the inference reads them.
extension SQLiteModelInference {
    /// `Z<digits><NAME>` (prefix `Z`) or `Z_<digits><NAME>` (prefix `Z_`) → (digits, NAME).
    static func numbered(_ name: String, prefix: String) -> (Int64, String)? {
        guard name.hasPrefix(prefix) else { return nil }
        let rest = name.dropFirst(prefix.count)
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        let tail = rest.dropFirst(digits.count)
        guard !digits.isEmpty, !tail.isEmpty, let number = Int64(digits) else { return nil }
        return (number, String(tail))
    }

    /// A column's name without `Z`, lower-cased; `_` first when that is not a valid name.
    static func propertyName(_ base: String) -> String {
        let name = base.lowercased()
        guard let first = name.unicodeScalars.first, !CharacterSet.decimalDigits.contains(first) else { return "_" + name }
        return name
    }

    /// The attribute type a column's declared type stands for (Core Data's names first, then
    /// SQLite's affinity rules).
    static func attributeType(declared: String) -> AttributeType {
        let type = declared.uppercased()
        if type.contains("INT") { return .integer64 }
        if type.hasPrefix("TIMESTAMP") || type.hasPrefix("DATE") { return .date }
        if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") { return .string }
        if type.contains("FLOA") || type.contains("REAL") || type.contains("DOUB") { return .double }
        if type.hasPrefix("DECIMAL") || type.hasPrefix("NUMERIC") { return .decimal }
        return .binaryData
    }

    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    func metadataText(on connection: SQLiteConnection) throws -> [String: String] {
        var result: [String: String] = [:]
        try connection.query("SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1") { row in
            if let uuid = row.string(at: 0) { result["NSStoreUUID"] = uuid }
            if let data = row.data(at: 1), case .dictionary(let entries)? = try? BinaryPropertyListReader().read(data) {
                result.merge(PropertyListValue.inspectionText(of: entries)) { _, new in new }
            }
        }
        return result
    }
}
