import Foundation
import StoreCore
import XCTest

/// `#Predicate` and `SortDescriptor` requests against their format-string twins: each typed
/// predicate must select the same posts as the twin, and both the posts the case names, after a
/// reopen; a construct with no store form is refused with `FetchError.untranslatablePredicate`
/// naming it.
struct TypedPredicateSuite {
    let kit: StoreTestKit

    /// One typed predicate, its format-string twin and the titles both must select.
    private struct Case {
        let typed: Predicate<Post>
        let format: String
        let arguments: [Any]
        let expected: Set<String>

        init(_ typed: Predicate<Post>, _ format: String, _ arguments: [Any] = [], _ expected: Set<String>) {
            self.typed = typed
            self.format = format
            self.arguments = arguments
            self.expected = expected
        }
    }

    /// What the cases capture: objects (by ID, as `#Predicate` captures only `Codable` values)
    /// and a date.
    private struct Captured {
        let ada: ManagedObjectID
        let swift: ManagedObjectID
        let noon: Date
    }

    private static let morning = "Misty morning", night = "Misty night", sunny = "Sunny day", rain = "Rain", snow = "Snow"

    private func cases(_ captured: Captured) -> [Case] {
        let minimum: Int64 = 5
        let names = ["Rain", "Sunny day"]
        let range: ClosedRange<Int64> = 10...100
        let ada = captured.ada, swift = captured.swift, noon = captured.noon
        return [
            Case(#Predicate { $0.views > 10 }, "views > 10", [], [Self.rain, Self.snow]),
            Case(#Predicate { $0.views >= minimum && $0.title != "Rain" }, "views >= %@ AND title != 'Rain'", [minimum], [Self.night, Self.sunny, Self.snow]),
            Case(#Predicate { $0.views < 5 || !($0.title == "Sunny day") }, "views < 5 OR NOT title == 'Sunny day'", [], [Self.morning, Self.night, Self.rain, Self.snow]),
            Case(#Predicate { $0.author?.name == "Ada" }, "author.name == 'Ada'", [], [Self.morning, Self.rain]),
            Case(#Predicate { $0.author == nil }, "author == nil", [], [Self.sunny, Self.snow]),
            Case(#Predicate { $0.author != nil && $0.author!.name == "Bob" }, "author != nil AND author.name == 'Bob'", [], [Self.night]),
            Case(#Predicate { $0.title.contains("isty") }, "title CONTAINS 'isty'", [], [Self.morning, Self.night]),
            Case(#Predicate { $0.title.starts(with: "Misty") }, "title BEGINSWITH 'Misty'", [], [Self.morning, Self.night]),
            Case(#Predicate { $0.comments.count >= 2 }, "comments.@count >= 2", [], [Self.morning, Self.rain]),
            Case(#Predicate { $0.comments.isEmpty }, "comments.@count == 0", [], [Self.sunny]),
            Case(
                #Predicate { $0.comments.contains(where: { $0.author == "ann" }) },
                "SUBQUERY(comments, $c, $c.author == 'ann').@count > 0", [], [Self.morning, Self.night, Self.rain]
            ),
            Case(
                #Predicate { $0.comments.filter({ $0.text.contains("great") }).count >= 2 },
                "SUBQUERY(comments, $c, $c.text CONTAINS 'great').@count >= 2", [], [Self.morning]
            ),
            Case(
                #Predicate { $0.comments.allSatisfy { $0.author == "ann" } },
                "SUBQUERY(comments, $c, NOT $c.author == 'ann').@count == 0", [], [Self.night, Self.sunny, Self.rain]
            ),
            Case(#Predicate { $0.views * 2 + 1 > 21 }, "views * 2 + 1 > 21", [], [Self.rain, Self.snow]),
            Case(#Predicate { $0.views - 40 > 0 }, "views - 40 > 0", [], [Self.rain, Self.snow]),
            Case(#Predicate { $0.views / 5 == 2 }, "views / 5 == 2", [], [Self.sunny]),
            Case(#Predicate { $0.views % 20 == 10 }, "modulus:by:(views, 20) == 10", [], [Self.sunny, Self.rain]),
            Case(#Predicate { -$0.views < -10 }, "-views < -10", [], [Self.rain, Self.snow]),
            Case(#Predicate { names.contains($0.title) }, "title IN %@", [names], [Self.rain, Self.sunny]),
            Case(#Predicate { (5...50).contains($0.views) }, "views BETWEEN {5, 50}", [], [Self.night, Self.sunny, Self.rain]),
            Case(#Predicate { (1..<10).contains($0.views) }, "views >= 1 AND views < 10", [], [Self.night]),
            Case(#Predicate { range.contains($0.views) }, "views BETWEEN %@", [[10, 100]], [Self.sunny, Self.rain, Self.snow]),
            Case(
                #Predicate { ($0.author?.name ?? "nobody") == "nobody" },
                "TERNARY(author.name != nil, author.name, 'nobody') == 'nobody'", [], [Self.sunny, Self.snow]
            ),
            Case(#Predicate { $0.tags.contains(where: { $0.objectID == swift }) }, "%@ IN tags", [swift], [Self.morning, Self.night]),
            Case(#Predicate { $0.author?.objectID == ada }, "author == %@", [ada], [Self.morning, Self.rain]),
            Case(#Predicate { $0.timestamp != nil && $0.timestamp! > noon }, "timestamp != nil AND timestamp > %@", [noon], [Self.rain, Self.snow]),
            Case(
                #Predicate { $0.views > 10 ? $0.title.starts(with: "S") : $0.title.starts(with: "M") },
                "(views > 10 AND title BEGINSWITH 'S') OR (NOT views > 10 AND title BEGINSWITH 'M')", [],
                [Self.morning, Self.night, Self.snow]
            ),
        ]
    }

    private func seed(_ context: ManagedObjectContext) throws -> Captured {
        let ada = try Author(context: context), bob = try Author(context: context)
        ada.name = "Ada"
        ada.emailAddress = "ada@example.com"
        bob.name = "Bob"
        let swift = try Tag(context: context), linux = try Tag(context: context)
        swift.name = "swift"
        linux.name = "linux"
        let later = Date(timeIntervalSinceReferenceDate: 1_000)
        let rows: [(String, Int64, Author?, [(String, String)], Set<Tag>, Date?)] = [
            (Self.morning, 0, ada, [("ann", "great view"), ("bob", "great")], [swift], Date(timeIntervalSinceReferenceDate: 0)),
            (Self.night, 5, bob, [("ann", "nice")], [swift, linux], Date(timeIntervalSinceReferenceDate: 0)),
            (Self.sunny, 10, nil, [], [], nil),
            (Self.rain, 50, ada, [("ann", "great great"), ("ann", "ok")], [linux], later),
            (Self.snow, 100, nil, [("cat", "great")], [], later),
        ]
        for (title, views, author, comments, tags, timestamp) in rows {
            let post = try Post(context: context)
            post.title = title
            post.views = views
            post.author = author
            post.tags = tags
            post.timestamp = timestamp
            for (name, text) in comments {
                let comment = try Comment(context: context)
                comment.author = name
                comment.text = text
                comment.post = post
            }
        }
        try context.save()
        return Captured(ada: ada.objectID, swift: swift.objectID, noon: Date(timeIntervalSinceReferenceDate: 500))
    }

    func run() {
        kit.check("typed predicates") {
            let stack = try kit.makeStack(model: BlogModel.make())
            let seeding = stack.newContext()
            let captured = try seeding.performAndWait { try seed(seeding) }
            try stack.reopen()
            let context = stack.newContext()
            try context.performAndWait {
                for (index, testCase) in cases(captured).enumerated() {
                    let typed = try context.fetch(FetchRequest<Post>(predicate: testCase.typed))
                    let twin = try context.fetch(FetchRequest<Post>(
                        entityName: "Post", predicate: StorePredicate(format: testCase.format, argumentArray: testCase.arguments)
                    ))
                    XCTAssertEqual(Set(typed.map(\.title)), testCase.expected, "\(kit), typed case \(index) (twin \(testCase.format))")
                    XCTAssertEqual(Set(twin.map(\.title)), testCase.expected, "\(kit), format twin \(testCase.format)")
                }
                try checkSorts(context)
                try checkBuilderKeyPaths(context)
                checkUntranslatable(context)
            }
        }
    }

    private func checkSorts(_ context: ManagedObjectContext) throws {
        let byViews = try context.fetch(FetchRequest<Post>(predicate: nil, sortBy: [SortDescriptor(\.views, order: .reverse)]))
        XCTAssertEqual(byViews.map(\.title), [Self.snow, Self.rain, Self.sunny, Self.night, Self.morning], "\(kit): descending views")
        let byTitle = try context.fetch(FetchRequest<Post>(predicate: #Predicate { $0.views > 0 }, sortBy: [SortDescriptor(\.title)]))
        XCTAssertEqual(byTitle.map(\.title), [Self.night, Self.rain, Self.snow, Self.sunny], "\(kit): ascending titles")
        let byAuthor = try context.fetch(FetchRequest<Post>(
            predicate: #Predicate { $0.author != nil }, sortBy: [SortDescriptor(\.views, order: .reverse)]
        ))
        XCTAssertEqual(byAuthor.map(\.title), [Self.rain, Self.night, Self.morning], "\(kit)")
        let ids = try context.fetch(FetchRequest<ManagedObjectID>(entity: Post.self, predicate: #Predicate { $0.views >= 50 }))
        XCTAssertEqual(ids.count, 2, "\(kit): object-ID results")
    }

    private func checkBuilderKeyPaths(_ context: ManagedObjectContext) throws {
        var request = FetchRequest<Post>()
        request.predicate = .key(\Post.views) > 10 || .key(\Post.author).key(\Author.name) == "Bob"
        XCTAssertEqual(Set(try context.fetch(request).map(\.title)), [Self.night, Self.rain, Self.snow], "\(kit): builder key paths")
        request.predicate = .key(\Post.author).key(\Author.emailAddress) == "ada@example.com"
        XCTAssertEqual(Set(try context.fetch(request).map(\.title)), [Self.morning, Self.rain], "\(kit): an explicit key (@Attribute(\"email\"))")
    }

    private func checkUntranslatable(_ context: ManagedObjectContext) {
        let refused: [(Predicate<Post>, String)] = [
            (#Predicate { $0.title.max() != nil }, "SequenceMaximum"),
            (#Predicate { $0.title.count > 3 }, "key path"),
            (#Predicate { $0.willSaveCalls > 0 }, "key path"),
            (#Predicate { $0.shoutedTitle == "RAIN" }, "reads title but is not it"),
        ]
        for (predicate, construct) in refused {
            XCTAssertThrowsError(try context.fetch(FetchRequest<Post>(predicate: predicate)), "\(kit)") { error in
                XCTAssertEqual((error as? FetchError)?.code, .untranslatablePredicate, "\(kit): \(error)")
                XCTAssertTrue("\(error)".contains(construct), "\(kit): the error names \(construct): \(error)")
            }
            XCTAssertThrowsError(try StorePredicate(predicate), "\(kit): translating at once throws too")
        }
        let sortByComputed = FetchRequest<Post>(predicate: nil, sortBy: [SortDescriptor(\.didSaveCalls)])
        XCTAssertThrowsError(try context.fetch(sortByComputed), "\(kit): a sort by a property that is not in the model") { error in
            XCTAssertEqual((error as? FetchError)?.code, .untranslatablePredicate, "\(kit): \(error)")
        }
    }
}
