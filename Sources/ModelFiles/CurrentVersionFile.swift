import Foundation

/// Reads a package's `.xccurrentversion`: an XML property list whose `_XCCurrentVersionName`
/// names the current `.xcdatamodel`. Parsed with the same guarded libxml2 setup as model files
/// (never with PropertyListSerialization, which is not safe on files from elsewhere).
///
/// For example:
///
/// ```swift
/// try CurrentVersionFile.read(package.appendingPathComponent(".xccurrentversion"))   // "Blog 2.xcdatamodel"
/// ```
///
/// A dictionary without the key (Xcode writes `<dict/>` for a package whose current version
/// was never chosen) names no version: `nil`, and the package falls back as without the file.
enum CurrentVersionFile {
    static func read(_ url: URL) throws(ModelFileError) -> String? {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ModelFileError(.notFound, url: url, "the file cannot be read: \(error.localizedDescription)")
        }
        let root = try ModelXMLElement.parse(data, url: url)
        guard root.name == "plist", let dictionary = root.children.first, dictionary.name == "dict" else {
            throw ModelFileError(.malformed, url: url, line: root.line, "not a property list with a dictionary")
        }
        let items = dictionary.children
        for (offset, item) in items.enumerated() where item.name == "key" && item.text == "_XCCurrentVersionName" {
            guard offset + 1 < items.count, items[offset + 1].name == "string", !items[offset + 1].text.isEmpty else {
                throw ModelFileError(.malformed, url: url, line: item.line, "_XCCurrentVersionName has no string value")
            }
            return items[offset + 1].text
        }
        return nil
    }
}
