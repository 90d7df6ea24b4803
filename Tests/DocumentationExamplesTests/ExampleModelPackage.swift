import Foundation

/// The Xcode model package docs/model-files.md and docs/migration.md read: `Blog.xcdatamodeld`
/// with three versions — "Blog" (Post: title; Comment: text), "Blog 2" (Post gains subtitle)
/// and "Blog 3" (Post gains rating; the current version) — written as Xcode writes them.
///
/// Like ``ExampleStack``, this plays the application's part; it is not an example itself.
enum ExampleModelPackage {
    static let versionNames = ["Blog", "Blog 2", "Blog 3"]

    /// Writes the package into `folder` (created if needed) and returns its URL.
    static func write(in folder: URL) throws -> URL {
        let package = folder.appendingPathComponent("Blog.xcdatamodeld", isDirectory: true)
        let attributes = [
            #"<attribute name="title" optional="YES" attributeType="String"/>"#,
            #"<attribute name="subtitle" optional="YES" attributeType="String"/>"#,
            #"<attribute name="rating" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>"#,
        ]
        for (index, name) in versionNames.enumerated() {
            let version = package.appendingPathComponent("\(name).xcdatamodel", isDirectory: true)
            try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
            let contents = """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel">
                    <entity name="Post">\(attributes[0...index].joined())</entity>
                    <entity name="Comment"><attribute name="text" optional="YES" attributeType="String"/></entity>
                </model>
                """
            try Data(contents.utf8).write(to: version.appendingPathComponent("contents"))
        }
        let current = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>Blog 3.xcdatamodel</string></dict></plist>
            """
        try Data(current.utf8).write(to: package.appendingPathComponent(".xccurrentversion"))
        return package
    }
}
