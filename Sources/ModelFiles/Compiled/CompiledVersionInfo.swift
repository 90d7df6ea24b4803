import Foundation
import StoreCore

/// A `.momd`'s `VersionInfo.plist` — a binary (or XML) property list that momc writes:
/// `NSManagedObjectModel_CurrentVersionName` names the current `.mom`, and
/// `NSManagedObjectModel_VersionHashes` maps each version's name to its entities' version
/// hashes. Read with the project's own binary property list reader or the guarded libxml2
/// setup, never with PropertyListSerialization.
///
/// For example:
///
/// ```swift
/// let info = try CompiledVersionInfo.read(momd.appendingPathComponent("VersionInfo.plist"))
/// info.currentVersionName        // "Blog 2"
/// info.versionHashes["Blog"]     // ["Post": <32 bytes>, …]
/// ```
struct CompiledVersionInfo {
    var currentVersionName: String?
    var versionHashes: [String: [String: Data]] = [:]

    static func read(_ url: URL) throws(ModelFileError) -> CompiledVersionInfo {
        let data = try CompiledModelFile.read(url, limit: 4 << 20)
        let plist: PropertyListValue
        if data.starts(with: Array("bplist".utf8)) {
            do {
                plist = try BinaryPropertyListReader(limits: .init(maxDepth: 16, maxValueCount: 100_000)).read(data)
            } catch {
                throw ModelFileError(.malformed, url: url, "not a readable property list: \(error)")
            }
        } else {
            plist = try XMLPropertyList.read(ModelXMLElement.parse(data, url: url), url: url)
        }
        guard case .dictionary(let root) = plist else {
            throw ModelFileError(.malformed, url: url, "not a property list with a dictionary")
        }
        var info = CompiledVersionInfo()
        if let name = root["NSManagedObjectModel_CurrentVersionName"]?.stringValue, !name.isEmpty {
            info.currentVersionName = name.hasSuffix(".mom") ? String(name.dropLast(4)) : name
        }
        for (version, hashes) in root["NSManagedObjectModel_VersionHashes"]?.dictionaryValue ?? [:] {
            var byEntity: [String: Data] = [:]
            for (entity, hash) in hashes.dictionaryValue ?? [:] {
                if let data = hash.dataValue { byEntity[entity] = data }
            }
            info.versionHashes[version] = byEntity
        }
        return info
    }
}

/// The XML form of a property list (`<plist><dict><key>…`), as ``PropertyListValue``: strings,
/// integers, reals, booleans, data, dates, arrays and dictionaries.
enum XMLPropertyList {
    static func read(_ root: ModelXMLElement, url: URL) throws(ModelFileError) -> PropertyListValue {
        guard root.name == "plist", let top = root.children.first else {
            throw ModelFileError(.malformed, url: url, line: root.line, "not a property list")
        }
        return try value(top, url: url)
    }

    private static func value(_ element: ModelXMLElement, url: URL) throws(ModelFileError) -> PropertyListValue {
        switch element.name {
        case "string": return .string(element.text)
        case "integer":
            guard let integer = Int64(element.text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw ModelFileError(.malformed, url: url, line: element.line, "'\(element.text)' is not an integer")
            }
            return .integer(integer)
        case "real":
            guard let real = Double(element.text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw ModelFileError(.malformed, url: url, line: element.line, "'\(element.text)' is not a number")
            }
            return .real(real)
        case "true": return .boolean(true)
        case "false": return .boolean(false)
        case "data":
            let text = element.text.filter { !$0.isWhitespace }
            guard let data = Data(base64Encoded: text) else {
                throw ModelFileError(.malformed, url: url, line: element.line, "<data> is not base64")
            }
            return .data(data)
        case "date":
            guard let date = ISO8601DateFormatter().date(from: element.text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw ModelFileError(.malformed, url: url, line: element.line, "'\(element.text)' is not a date")
            }
            return .date(date)
        case "array":
            var values: [PropertyListValue] = []
            for child in element.children { values.append(try value(child, url: url)) }
            return .array(values)
        case "dict":
            var dictionary: [String: PropertyListValue] = [:]
            let children = element.children
            var index = 0
            while index < children.count {
                guard children[index].name == "key", index + 1 < children.count else {
                    throw ModelFileError(.malformed, url: url, line: children[index].line, "a <dict> entry without a <key> and a value")
                }
                dictionary[children[index].text] = try value(children[index + 1], url: url)
                index += 2
            }
            return .dictionary(dictionary)
        default:
            throw ModelFileError(.malformed, url: url, line: element.line, "<\(element.name)> is not a property list element")
        }
    }
}
