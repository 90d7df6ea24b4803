import Foundation
import ModelFiles
import StoreCore
import StoreTestSupport
import XCTest

/// Model files Core Data loads despite a flaw load here too, with a warning on the version at the
/// line concerned, and save and read back on every store type: SwiftGen's `now()` derived into a
/// Double attribute (seconds since 2001, as Core Data stores it), and relationships whose inverse
/// does not point back, is missing, or is a many-to-many that does not name them back.
final class LenientModelCheckTests: XCTestCase {
    /// SwiftGen's test model, reduced to the attribute it was refused for.
    private static let swiftGen = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="ChildEntity" representedClassName="ChildEntity" parentEntity="MainEntity" syncable="YES">
                <attribute name="now" attributeType="Double" derived="YES" derivationExpression="now()" usesScalarValueType="YES"/>
            </entity>
            <entity name="MainEntity" representedClassName="CustomMainEntity" syncable="YES">
                <attribute name="string" attributeType="String"/>
            </entity>
        </model>
        """

    private static let inverses = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Folder" representedClassName="Folder" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="folder" inverseEntity="Item"/>
                <relationship name="labels" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="folders" inverseEntity="Tag"/>
                <relationship name="pinnedItems" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="folder" inverseEntity="Item"/>
                <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="folders" inverseEntity="Tag"/>
            </entity>
            <entity name="Item" representedClassName="Item" syncable="YES">
                <attribute name="title" optional="YES" attributeType="String"/>
                <relationship name="folder" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Folder" inverseName="items" inverseEntity="Folder"/>
                <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Folder" inverseName="ghost" inverseEntity="Folder"/>
            </entity>
            <entity name="Tag" representedClassName="Tag" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="folders" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Folder" inverseName="tags" inverseEntity="Folder"/>
            </entity>
        </model>
        """

    private func version(_ contents: String, named name: String, in directory: TemporaryDirectory) throws -> ModelVersion {
        let folder = directory.url.appendingPathComponent("\(name).xcdatamodel", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: folder.appendingPathComponent("contents"))
        return try ModelVersion(contentsOf: folder)
    }

    private func names(_ value: Any?, _ key: String) -> Set<String> {
        Set((value as? Set<ManagedObject> ?? []).compactMap { try? $0.value(forKey: key) as? String })
    }

    func testNowDerivedIntoADoubleStoresSecondsSince2001OnEveryStore() throws {
        let directory = try TemporaryDirectory()
        let loaded = try version(Self.swiftGen, named: "Model", in: directory)
        XCTAssertEqual(loaded.warnings, [], "Core Data loads it as it is")
        XCTAssertEqual(loaded.model.entitiesByName["ChildEntity"]?.attributesByName["now"]?.derivation, .now)
        for backend in StoreBackend.all {
            let stack = try BackendStack(backend, model: version(Self.swiftGen, named: "Model", in: directory).model)
            let context = stack.newContext()
            let before = Date().timeIntervalSinceReferenceDate
            let id = try context.performAndWait { () throws -> ManagedObjectID in
                let child = try context.insertNewObject(forEntityName: "ChildEntity")
                try child.setValue("child", forKey: "string")
                try context.save()
                return child.objectID
            }
            let after = Date().timeIntervalSinceReferenceDate
            try stack.reopen()
            let reader = stack.newContext()
            try reader.performAndWait {
                let seconds = try XCTUnwrap(try reader.existingObject(with: id).value(forKey: "now") as? Double, "\(backend)")
                XCTAssertTrue((before - 1)...(after + 1) ~= seconds, "\(backend): \(seconds) is not a time of the save (\(before)…\(after))")
            }
        }
    }

    func testInversesThatDoNotPointBackLoadWithWarningsAndRoundTripOnEveryStore() throws {
        let directory = try TemporaryDirectory()
        let loaded = try version(Self.inverses, named: "Folders", in: directory)
        let lines = Self.inverses.split(separator: "\n", omittingEmptySubsequences: false)
        func line(of name: String) -> Int { (lines.firstIndex { $0.contains("name=\"\(name)\"") } ?? -1) + 1 }
        XCTAssertEqual(loaded.warnings.map(\.line), [line(of: "labels"), line(of: "pinnedItems"), line(of: "owner")], "\(loaded.warnings)")
        XCTAssertTrue(loaded.warnings[1].message.contains("Folder.pinnedItems: the inverse does not point back (Item.folder's inverse is items)"), loaded.warnings[1].message)
        XCTAssertTrue(loaded.warnings[2].message.contains("inverse 'ghost' not found on Folder"), loaded.warnings[2].message)

        for backend in StoreBackend.all {
            let stack = try BackendStack(backend, model: version(Self.inverses, named: "Folders", in: directory).model)
            let context = stack.newContext()
            let folderID = try context.performAndWait { () throws -> ManagedObjectID in
                let folder = try context.insertNewObject(forEntityName: "Folder")
                try folder.setValue("inbox", forKey: "name")
                var items: [ManagedObject] = []
                for title in ["a", "b", "pinned"] {
                    let item = try context.insertNewObject(forEntityName: "Item")
                    try item.setValue(title, forKey: "title")
                    items.append(item)
                }
                try folder.setValue(Set(items[0...1]), forKey: "items")
                try folder.setValue(Set([items[2]]), forKey: "pinnedItems")
                XCTAssertEqual(try items[2].value(forKey: "folder") as? ManagedObject, folder, "\(backend): the kept inverse is set")
                try items[0].setValue(folder, forKey: "owner")
                let tags = try ["red", "blue"].map { name in
                    let tag = try context.insertNewObject(forEntityName: "Tag")
                    try tag.setValue(name, forKey: "name")
                    return tag
                }
                try folder.setValue(Set([tags[0]]), forKey: "tags")
                try folder.setValue(Set([tags[1]]), forKey: "labels")
                XCTAssertEqual(names(try tags[1].value(forKey: "folders"), "name"), [], "\(backend): labels is linked one way")
                try context.save()
                return folder.objectID
            }
            try stack.reopen()
            let reader = stack.newContext()
            try reader.performAndWait {
                let folder = try reader.existingObject(with: folderID)
                XCTAssertTrue(names(try folder.value(forKey: "items"), "title").isSuperset(of: ["a", "b"]), "\(backend)")
                XCTAssertTrue(names(try folder.value(forKey: "pinnedItems"), "title").contains("pinned"), "\(backend)")
                XCTAssertEqual(names(try folder.value(forKey: "tags"), "name"), ["red"], "\(backend)")
                XCTAssertEqual(names(try folder.value(forKey: "labels"), "name"), ["blue"], "\(backend)")
                let items = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
                for item in items {
                    let title = try item.value(forKey: "title") as? String
                    XCTAssertEqual(try item.value(forKey: "folder") as? ManagedObject, folder, "\(backend): \(title ?? "")")
                    XCTAssertEqual(try item.value(forKey: "owner") as? ManagedObject, title == "a" ? folder : nil, "\(backend): \(title ?? "")")
                }
            }
        }
    }
}
