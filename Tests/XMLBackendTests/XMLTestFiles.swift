import Foundation
import StoreCore
import StoreTestSupport
import XMLBackend

/// Helpers for the bad-file tests: write bytes to a store file, load it as an XML store, and
/// check the load failed with the expected code and left the file as it was.
enum XMLTestFiles {
    /// A small valid store of the blog model around `objects` (object elements).
    static func store(objects: String, prolog: String = #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#) -> String {
        """
        \(prolog)
        <database>
            <databaseInfo>
                <version>134481920</version>
                <UUID>D1E2667A-3268-45DB-8AA0-DF69A046A0F1</UUID>
                <nextObjectID>10</nextObjectID>
            </databaseInfo>
        \(objects)
        </database>

        """
    }

    static let validObjects = """
            <object type="POST" id="z1">
                <attribute name="title" type="string">Hello</attribute>
                <attribute name="views" type="int64">3</attribute>
                <relationship name="comments" type="0/0" destination="COMMENT" idrefs="z2"></relationship>
            </object>
            <object type="COMMENT" id="z2">
                <attribute name="text" type="string">Hi</attribute>
                <relationship name="post" type="0/1" destination="POST" idrefs="z1"></relationship>
            </object>
        """

    /// Loads `bytes` as an XML store of the blog model (with migration, so version hashes do not
    /// matter) and returns the error; checks the file is unchanged afterwards.
    static func loadError(_ bytes: Data, file: StaticString = #filePath, line: UInt = #line) throws -> StoreError? {
        let directory = try TemporaryDirectory()
        let url = directory.file("Bad.xml")
        try bytes.write(to: url)
        var description = PersistentStoreDescription(type: .xml, url: url)
        description.shouldMigrateStoreAutomatically = true
        defer {
            if (try? Data(contentsOf: url)) != bytes { print("\(file):\(line): the file changed after a failed load") }
        }
        do {
            _ = try AtomicStore(PersistentStoreLoadRequest(description: description, model: BlogModel.make()), type: .xml, format: XMLStoreFormat())
            return nil
        } catch let error as StoreError {
            guard (try? Data(contentsOf: url)) == bytes else { throw UnchangedFileError() }
            return error
        }
    }

    struct UnchangedFileError: Error {}

    static func loadError(_ text: String) throws -> StoreError? { try loadError(Data(text.utf8)) }
}
