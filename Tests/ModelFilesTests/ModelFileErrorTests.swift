import Foundation
import ModelFiles
import StoreCore
import StoreTestSupport
import XCTest

/// Files that are not (good) model files give a ``ModelFileError`` naming the file and, for bad
/// XML, the line; what the reader does not know is reported as warnings, never dropped silently.
final class ModelFileErrorTests: XCTestCase {
    private func write(_ text: String, to name: String, in directory: TemporaryDirectory) throws -> URL {
        let folder = directory.url.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let contents = folder.appendingPathComponent("contents")
        try Data(text.utf8).write(to: contents)
        return folder
    }

    /// A `Blog.xcdatamodeld` package holding one version per `(name, contents)`.
    private func package(_ versions: [(name: String, contents: String)], in directory: TemporaryDirectory) throws -> URL {
        let package = directory.url.appendingPathComponent("Blog.xcdatamodeld", isDirectory: true)
        for (name, contents) in versions {
            let folder = package.appendingPathComponent("\(name).xcdatamodel", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: folder.appendingPathComponent("contents"))
        }
        return package
    }

    private func loadError(_ url: URL) -> ModelFileError? {
        do {
            _ = try ManagedObjectModel(contentsOf: url)
            return nil
        } catch {
            return error
        }
    }

    func testMalformedXMLNamesTheFileAndLine() throws {
        let directory = try TemporaryDirectory()
        let url = try write("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel">
                <entity name="Post">
                    <attribute name="title" attributeType="String">
                </entity>
            </model>
            """, to: "Broken.xcdatamodel", in: directory)
        let error = try XCTUnwrap(loadError(url))
        XCTAssertEqual(error.code, .malformed)
        XCTAssertEqual(error.url.lastPathComponent, "contents")
        XCTAssertEqual(error.line, 5, "\(error)")
        XCTAssertTrue(error.description.contains("Broken.xcdatamodel/contents, line 5"), error.description)
    }

    func testTruncatedAndEmptyFilesAreMalformed() throws {
        let directory = try TemporaryDirectory()
        let truncated = try write("<?xml version=\"1.0\"?>\n<model>\n<entity name=\"A\"", to: "Truncated.xcdatamodel", in: directory)
        XCTAssertEqual(loadError(truncated)?.code, .malformed)
        let empty = try write("", to: "Empty.xcdatamodel", in: directory)
        XCTAssertEqual(loadError(empty)?.code, .malformed)
        let notAModel = try write("<plist><dict/></plist>", to: "Plist.xcdatamodel", in: directory)
        XCTAssertTrue(loadError(notAModel)?.message.contains("not an Xcode model file") == true)
    }

    func testEntityDeclarationsAreRefusedAndNeverExpanded() throws {
        let directory = try TemporaryDirectory()
        let url = try write("""
            <?xml version="1.0"?>
            <!DOCTYPE model [ <!ENTITY a "aaaaaaaaaa"> <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"> ]>
            <model><entity name="E&b;"/></model>
            """, to: "Entities.xcdatamodel", in: directory)
        let error = try XCTUnwrap(loadError(url))
        XCTAssertEqual(error.code, .malformed)
        XCTAssertTrue(error.message.contains("entities"), error.message)
        let external = try write("""
            <?xml version="1.0"?>
            <!DOCTYPE model SYSTEM "file:///etc/passwd">
            <model><entity name="Post"><attribute name="a" optional="YES" attributeType="String"/></entity></model>
            """, to: "External.xcdatamodel", in: directory)
        let model = try ManagedObjectModel(contentsOf: external)
        XCTAssertEqual(model.entities.map(\.name), ["Post"], "an external DTD is neither loaded nor needed")
    }

    func testUnknownElementsAndAttributesBecomeWarningsWithTheirLines() throws {
        let directory = try TemporaryDirectory()
        let url = try write("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" futureModelFlag="YES">
                <entity name="Post" representedClassName="Post">
                    <attribute name="title" optional="YES" attributeType="String" sparkle="YES"/>
                    <attribute name="shape" optional="YES" attributeType="Composite"/>
                    <attribute name="rank" optional="YES" attributeType="Integer 16" defaultValueString="99999"/>
                    <hologram name="x"/>
                </entity>
                <fetchRequest name="broken" entity="Post" predicateString="title ==== 1"/>
            </model>
            """, to: "Future.xcdatamodel", in: directory)
        let version = try ModelVersion(contentsOf: url)
        let lines = version.warnings.map(\.line)
        XCTAssertEqual(lines, [2, 4, 5, 6, 7, 9], "\(version.warnings)")
        XCTAssertTrue(version.warnings[0].message.contains("futureModelFlag"))
        XCTAssertTrue(version.warnings[1].message.contains("sparkle"))
        XCTAssertTrue(version.warnings[2].message.contains("Composite"))
        XCTAssertTrue(version.warnings[3].message.contains("99999"))
        XCTAssertTrue(version.warnings[4].message.contains("hologram"))
        XCTAssertTrue(version.warnings[5].message.contains("broken"))
        let post = try version.model.entity(named: "Post")
        XCTAssertEqual(post.attributes.map(\.name), ["title", "rank"])
        XCTAssertEqual(post.attributesByName["rank"]?.defaultValue, .null, "a default that does not fit is dropped, with a warning")
        XCTAssertNil(version.model.fetchRequestTemplate(forName: "broken"))
    }

    func testInconsistentModelCarriesTheModelError() throws {
        let directory = try TemporaryDirectory()
        let url = try write("""
            <?xml version="1.0"?>
            <model>
                <entity name="Post">
                    <relationship name="author" optional="YES" maxCount="1" destinationEntity="Author" inverseName="posts" inverseEntity="Author"/>
                </entity>
            </model>
            """, to: "Dangling.xcdatamodel", in: directory)
        let error = try XCTUnwrap(loadError(url))
        XCTAssertEqual(error.code, .invalidModel)
        XCTAssertEqual(error.modelError?.code, .unknownDestination)
        XCTAssertTrue(error.description.contains("Author"), error.description)
    }

    func testUnsupportedAndMissingFilesSayWhy() throws {
        let directory = try TemporaryDirectory()
        let momd = directory.url.appendingPathComponent("Blog.momd", isDirectory: true)
        try FileManager.default.createDirectory(at: momd, withIntermediateDirectories: true)
        XCTAssertEqual(loadError(momd)?.code, .notFound, "a .momd without a .mom version")
        let omo = momd.appendingPathComponent("Blog.omo")
        try Data("momv2$".utf8).write(to: omo)
        XCTAssertEqual(loadError(omo)?.code, .unsupportedFormat)
        let xcode3 = directory.url.appendingPathComponent("Old.xcdatamodel", isDirectory: true)
        try FileManager.default.createDirectory(at: xcode3, withIntermediateDirectories: true)
        try Data("bplist00".utf8).write(to: xcode3.appendingPathComponent("elements"))
        XCTAssertEqual(loadError(xcode3)?.code, .unsupportedFormat)
        XCTAssertEqual(loadError(directory.url.appendingPathComponent("Nothing.xcdatamodeld"))?.code, .notFound)
        let emptyPackage = directory.url.appendingPathComponent("Empty.xcdatamodeld", isDirectory: true)
        try FileManager.default.createDirectory(at: emptyPackage, withIntermediateDirectories: true)
        XCTAssertEqual(loadError(emptyPackage)?.code, .notFound)
    }

    func testPackageWithoutCurrentVersionFileTakesTheVersionNamedLikeIt() throws {
        let directory = try TemporaryDirectory()
        let package = try package([("Blog", "<model><entity name=\"Post\"/></model>"), ("Blog 2", "<model><entity name=\"Article\"/></model>")], in: directory)
        let bundle = try ManagedObjectModelBundle(contentsOf: package)
        XCTAssertEqual(bundle.currentVersionName, "Blog")
        XCTAssertEqual(bundle.packageWarnings.count, 1)
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>Blog 2.xcdatamodel</string></dict></plist>
            """.utf8).write(to: package.appendingPathComponent(".xccurrentversion"))
        XCTAssertEqual(try ManagedObjectModel(contentsOf: package).entities.map(\.name), ["Article"])
    }

    func testCurrentVersionFileWithAnEmptyDictionaryFallsBackAsWithoutOne() throws {
        let directory = try TemporaryDirectory()
        let package = try package([("Blog", "<model><entity name=\"Post\"/></model>"), ("Blog 2", "<model><entity name=\"Article\"/></model>")], in: directory)
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict/></plist>
            """.utf8).write(to: package.appendingPathComponent(".xccurrentversion"))
        let bundle = try ManagedObjectModelBundle(contentsOf: package)
        XCTAssertEqual(bundle.currentVersionName, "Blog", "the version named like the package")
        XCTAssertEqual(bundle.packageWarnings.map(\.message), [".xccurrentversion names no version; Blog.xcdatamodel is taken as the current version"])
        XCTAssertEqual(try ManagedObjectModel(contentsOf: package).entities.map(\.name), ["Post"])
    }

    func testDefaultsWrittenTheWayXcodeWritesThem() throws {
        let directory = try TemporaryDirectory()
        let url = try write("""
            <model>
              <entity name="Settings">
                <attribute name="onFromNumber" attributeType="Boolean" defaultValueString="1.0"/>
                <attribute name="offFromNumber" attributeType="Boolean" defaultValueString="0.0"/>
                <attribute name="onFromYES" attributeType="Boolean" defaultValueString="YES"/>
                <attribute name="count" attributeType="Integer 64" defaultValueString="1e3"/>
                <attribute name="ratio" attributeType="Double" defaultValueString="2.5E-1"/>
                <attribute name="price" attributeType="Decimal" defaultValueString="1.5e2"/>
                <attribute name="since" attributeType="Date" defaultValueString="86400"/>
                <attribute name="when" attributeType="Date" defaultDateTimeInterval="3600"/>
              </entity>
            </model>
            """, to: "Settings.xcdatamodel", in: directory)
        let version = try ModelVersion(contentsOf: url)
        XCTAssertEqual(version.warnings.map(\.message), [])
        let entity = try version.model.entity(named: "Settings")
        func defaultValue(_ name: String) -> StoreValue? { entity.attributesByName[name]?.defaultValue }
        XCTAssertEqual(defaultValue("onFromNumber"), .boolean(true))
        XCTAssertEqual(defaultValue("offFromNumber"), .boolean(false))
        XCTAssertEqual(defaultValue("onFromYES"), .boolean(true))
        XCTAssertEqual(defaultValue("count"), .integer(1000))
        XCTAssertEqual(defaultValue("ratio"), .double(0.25))
        XCTAssertEqual(defaultValue("price"), .decimal(Decimal(150)))
        XCTAssertEqual(defaultValue("since"), .date(Date(timeIntervalSinceReferenceDate: 86400)))
        XCTAssertEqual(defaultValue("when"), .date(Date(timeIntervalSinceReferenceDate: 3600)))
    }

    func testBundleLeavesOutAnOldVersionItCannotReadAndKeepsTheOthers() throws {
        let directory = try TemporaryDirectory()
        let versions = [
            ("Blog", "<model><entity name=\"Post\"><relationship name=\"author\" destinationEntity=\"Nobody\" inverseName=\"posts\" maxCount=\"1\"/></entity></model>"),
            ("Blog 2", "<model><entity name=\"Post\"/></model>"),
            ("Blog 3", "<model><entity name=\"Post\"/><entity name=\"Tag\"/></model>"),
        ]
        let package = try package(versions, in: directory)
        let currentVersion = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>%@.xcdatamodel</string></dict></plist>
            """
        try Data(currentVersion.replacingOccurrences(of: "%@", with: "Blog 3").utf8).write(to: package.appendingPathComponent(".xccurrentversion"))
        let bundle = try ManagedObjectModelBundle(contentsOf: package)
        XCTAssertEqual(bundle.versions.map(\.name), ["Blog 2", "Blog 3"])
        XCTAssertEqual(bundle.currentModel.entities.map(\.name), ["Post", "Tag"])
        XCTAssertEqual(bundle.packageWarnings.count, 1)
        XCTAssertTrue(bundle.packageWarnings[0].message.hasPrefix("version Blog cannot be read and was left out"), "\(bundle.packageWarnings)")
        XCTAssertTrue(bundle.packageWarnings[0].message.contains("Nobody"), "says why: \(bundle.packageWarnings)")
        XCTAssertNotNil(bundle.version(compatibleWithStoreMetadata: StoreMetadata(
            storeType: "sqlite", modelVersionHashes: try XCTUnwrap(bundle.version(named: "Blog 2")).model.entityVersionHashesByName)))

        // The current version itself unreadable: its error.
        try Data(currentVersion.replacingOccurrences(of: "%@", with: "Blog").utf8).write(to: package.appendingPathComponent(".xccurrentversion"))
        XCTAssertThrowsError(try ManagedObjectModelBundle(contentsOf: package)) { error in
            XCTAssertTrue("\(error)".contains("Nobody"), "\(error)")
        }
    }
}
