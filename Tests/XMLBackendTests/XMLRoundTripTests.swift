import Foundation
import StoreCore
import StoreTestSupport
import XCTest
import XMLBackend

/// Every attribute type and every relationship kind saved through a context into an XML store,
/// reopened in a new coordinator, and compared object by object.
final class XMLRoundTripTests: XCTestCase {
    private func fill(_ context: ManagedObjectContext) throws {
        var generator = SeededGenerator(state: 5)
        let large = Data((0..<1_000_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let owner = try context.insertNewObject(forEntityName: "Owner")
        try owner.setValue("Ada <&> \"Lovelace\"", forKey: "name")
        let labels = try ["fog", "hills", "日本語"].map { name in
            let label = try context.insertNewObject(forEntityName: "Label")
            try label.setValue(name, forKey: "name")
            return label
        }
        let rows: [[String: StoreValue]] = [
            [
                "i16": .integer(Int64(Int16.max)), "i32": .integer(Int64(Int32.min)), "i64": .integer(Int64.min),
                "dec": .decimal(Decimal(string: "3.1415926535897932384626433832795028841")!), "dbl": .double(.pi),
                "flt": .float(.leastNonzeroMagnitude), "str": "", "flag": true, "when": .date(.distantPast),
                "blob": .data(large), "packed": .data(Data("packed".utf8)), "uuid": .uuid(UUID()),
                "link": .uri(URL(string: "https://example.com/a?b=c&d=%3Ce%3E#f")!),
            ],
            [
                "i16": .integer(Int64(Int16.min)), "i32": .integer(Int64(Int32.max)), "i64": .integer(Int64.max),
                "dec": .decimal(Decimal(string: "-0.000000000000000000000000000000000001")!), "dbl": .double(.nan),
                "flt": .float(.infinity), "flag": false, "when": .date(.distantFuture), "blob": .data(Data()),
                "str": "Unicode 日本語 🇯🇵 é\u{301} <&> \"q\" 'a' ]]> \r\n\tend  ", "link": .uri(URL(fileURLWithPath: "/tmp/a b/c"))
            ],
            ["dbl": .double(-.infinity), "when": .date(Date(timeIntervalSinceReferenceDate: 123_456.789_012)), "flt": .float(-0.0)],
            ["str": "  \n\t  ", "dbl": .double(.greatestFiniteMagnitude), "flt": .float(.greatestFiniteMagnitude), "dec": .decimal(Decimal(string: "12345678901234567890123456789012345678")!)],
            [:],
        ]
        for (index, row) in rows.enumerated() {
            let sample = try context.insertNewObject(forEntityName: "Sample")
            for (key, value) in row { try sample.setStoreValue(value, forKey: key) }
            if index == 0 {
                try sample.setValue(owner, forKey: "owner")
                try sample.setValue(Set(labels), forKey: "labels")
                let steps = try [3, 1, 2].map { n in
                    let step = try context.insertNewObject(forEntityName: "Step")
                    try step.setValue(Int32(n), forKey: "n")
                    return step
                }
                try sample.setValue(steps, forKey: "steps")
                let circle = try context.insertNewObject(forEntityName: "Circle")
                try circle.setValue(2.5, forKey: "radius")
                try sample.setValue(circle, forKey: "shape")
            } else if index == 1 {
                try sample.setValue(owner, forKey: "owner")
                try sample.setValue(Set(labels.prefix(2)), forKey: "labels")
                let square = try context.insertNewObject(forEntityName: "Square")
                try square.setValue(Float(1.5), forKey: "side")
                try square.setValue("sq", forKey: "name")
                try sample.setValue(square, forKey: "shape")
            }
        }
    }

    func testEveryAttributeTypeAndRelationshipKindSurvivesReopening() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Everything.xml")
        let model = try EverythingModel.make()
        var saved: [String: [String: String]] = [:]
        do {
            let container = try TestStack.xmlContainer(model, at: url)
            let context = container.newBackgroundContext()
            try context.performAndWait {
                try fill(context)
                try context.save()
                saved = try EverythingModel.contents(of: context, model: model)
            }
        }
        XCTAssertEqual(saved.count, 5 + 1 + 3 + 3 + 2)
        let container = try TestStack.xmlContainer(model, at: url)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let reopened = try EverythingModel.contents(of: context, model: model)
            XCTAssertEqual(Set(reopened.keys), Set(saved.keys))
            for (id, values) in saved {
                XCTAssertEqual(reopened[id], values, "object \(id)")
            }
        }
        let text = try String(contentsOf: url, encoding: .utf8)
        if ProcessInfo.processInfo.environment["XML_DUMP"] != nil { print(text.prefix(4000)) }
        XCTAssertTrue(text.contains("<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">"))
        XCTAssertTrue(text.contains("<attribute name=\"dbl\" type=\"double\">nan</attribute>"))
        XCTAssertTrue(text.contains("type=\"SAMPLE\""))
        XCTAssertTrue(text.contains("type=\"0/1\" destination=\"OWNER\""))
    }

    func testSavingAgainRewritesAFileThatReadsBack() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Blog.xml")
        do {
            let context = try TestStack.xmlContainer(at: url).newBackgroundContext()
            try context.performAndWait {
                let post = try Post(context: context)
                post.title = "one"
                try context.save()
                post.title = "two"
                let comment = try Comment(context: context)
                comment.text = "hi"
                comment.post = post
                try context.save()
            }
        }
        let context = try TestStack.xmlContainer(at: url).newBackgroundContext()
        try context.performAndWait {
            let post = try XCTUnwrap(context.fetch(FetchRequest<Post>()).first)
            XCTAssertEqual(post.title, "two")
            XCTAssertEqual(post.comments.map(\.text), ["hi"])
        }
    }

    func testAStringXMLCannotHoldIsRefusedAtSaveAndTheFileIsUnchanged() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Blog.xml")
        let context = try TestStack.xmlContainer(at: url).newBackgroundContext()
        let before = try Data(contentsOf: url)
        try context.performAndWait {
            let post = try Post(context: context)
            post.title = "bell \u{7}"
            XCTAssertThrowsError(try context.save()) { error in
                XCTAssertEqual((error as? StoreError)?.code, .invalidOption, "\(error)")
                XCTAssertTrue("\(error)".contains("U+0007"), "\(error)")
            }
        }
        XCTAssertEqual(try Data(contentsOf: url), before)
    }
}
