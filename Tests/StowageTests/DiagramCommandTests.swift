import Foundation
import Stowage
import StoreTestSupport
import XCTest

/// `stowage diagram`, run as a user runs it: DOT that Graphviz accepts and SVG, naming every
/// entity and relationship, for the demo model, an Xcode model file and a Core Data store.
final class DiagramCommandTests: XCTestCase {
    func testTheDemoModelIsDrawnWithItsAttributesRelationshipsAndDeleteRules() throws {
        let dot = try diagram(["demo", "--format", "dot"])
        XCTAssertTrue(dot.hasPrefix("digraph \"demo\" {"), dot)
        XCTAssertTrue(dot.contains("title: String"), dot)
        XCTAssertTrue(dot.contains("timestamp: Date?"), dot)
        XCTAssertTrue(dot.contains("\"Post\" -> \"Comment\" [label=\"comments [0..*] ⇄ post · cascade\""), dot)
        XCTAssertTrue(dot.contains("\"Comment\" -> \"Post\" [label=\"post [1..1] ⇄ comments · nullify\""), dot)
        try assertGraphvizAccepts(dot, naming: ["Post", "Comment", "comments", "post"])
    }

    func testAnXcodeModelFileIsDrawnWithInheritance() throws {
        let directory = try TemporaryDirectory()
        let modelFile = directory.file("Shop.xcdatamodel")
        try FileManager.default.createDirectory(at: modelFile, withIntermediateDirectories: true)
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" systemVersion="22A380" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
                <entity name="Item" representedClassName="Item" isAbstract="YES" syncable="YES">
                    <attribute name="name" attributeType="String"/>
                    <relationship name="orders" toMany="YES" deletionRule="Deny" destinationEntity="Order" inverseName="items" inverseEntity="Order"/>
                </entity>
                <entity name="Book" representedClassName="Book" parentEntity="Item" syncable="YES">
                    <attribute name="pages" optional="YES" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
                </entity>
                <entity name="Order" representedClassName="Order" syncable="YES">
                    <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="orders" inverseEntity="Item"/>
                </entity>
            </model>
            """.utf8).write(to: modelFile.appendingPathComponent("contents"))
        let dot = try diagram([modelFile.path, "--format", "dot"])
        XCTAssertTrue(dot.contains("\"Book\" -> \"Item\" [arrowhead=empty"), "inheritance is drawn: \(dot)")
        XCTAssertTrue(dot.contains("<I>Item</I> (abstract)"), dot)
        XCTAssertTrue(dot.contains("orders [1..*] ⇄ items · deny"), dot)
        try assertGraphvizAccepts(dot, naming: ["Item", "Book", "Order", "orders", "items"])
    }

    func testAFixtureModelAndAFixtureStoreAreDrawn() throws {
        guard let model = CoreDataFixtures.model("duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld") else {
            throw XCTSkip("the Core Data fixtures are not present (docs/architecture.md says how to get them)")
        }
        let fromModel = try diagram([model.path, "--format", "dot"])
        try assertGraphvizAccepts(fromModel, naming: ["BookmarkEntity", "children", "parent"])

        let directory = try TemporaryDirectory()
        let store = try XCTUnwrap(try CoreDataFixtures.copyOfStore("fruitsamples__iPhoneCoreDataRecipes/Recipes.sqlite", into: directory.url))
        let fromStore = try diagram([store.path, "--format", "dot"])
        try assertGraphvizAccepts(fromStore, naming: ["Recipe", "Ingredient", "RecipeType", "Image", "ingredients", "recipes", "type"])
        XCTAssertTrue(fromStore.contains("ingredients [0..*] ⇄ recipe"), fromStore)
    }

    func testSVGIsWrittenToAFileWhenGraphvizIsInstalledAndDOTOtherwise() throws {
        let directory = try TemporaryDirectory()
        let output = directory.file("demo.svg")
        let result = try runStowage(["diagram", "demo", "--output", output.path])
        XCTAssertEqual(result.status, 0, result.output)
        let written = String(decoding: try Data(contentsOf: output), as: UTF8.self)
        if Self.dot == nil {
            XCTAssertTrue(written.hasPrefix("digraph"), written)
            XCTAssertTrue(result.output.contains("Graphviz's `dot` is not installed"), result.output)
        } else {
            XCTAssertTrue(written.contains("<svg"), written)
            XCTAssertTrue(written.contains(">Post</text>") && written.contains(">Comment</text>"), written)
        }
    }

    func testAMissingInputIsAClearError() throws {
        let result = try runStowage(["diagram", "/nonexistent/Blog.sqlite"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.output.contains("there is no file at /nonexistent/Blog.sqlite"), result.output)
    }

    private func diagram(_ arguments: [String]) throws -> String {
        let result = try runStowage(["diagram"] + arguments)
        XCTAssertEqual(result.status, 0, result.output)
        return result.output
    }

    private static let dot: URL? = ["/usr/bin/dot", "/usr/local/bin/dot"].map(URL.init(fileURLWithPath:))
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }

    /// The DOT names every node and edge label given; when Graphviz is installed (CI installs
    /// it), `dot` parses the text and its SVG names them too.
    private func assertGraphvizAccepts(_ source: String, naming names: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        for name in names {
            XCTAssertTrue(source.contains("\"\(name)\"") || source.contains("label=\"\(name) ["), "\(name) is in the diagram", file: file, line: line)
        }
        XCTAssertEqual(source.filter { $0 == "{" }.count, source.filter { $0 == "}" }.count, file: file, line: line)
        guard let dot = Self.dot else { return }
        let process = Process()
        process.executableURL = dot
        process.arguments = ["-Tsvg"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        input.fileHandleForWriting.write(Data(source.utf8))
        try input.fileHandleForWriting.close()
        let svg = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "Graphviz parses the DOT: \(svg)", file: file, line: line)
        for name in names {
            XCTAssertTrue(svg.contains(">\(name)") || svg.contains("\(name) ["), "\(name) is drawn", file: file, line: line)
        }
    }
}
