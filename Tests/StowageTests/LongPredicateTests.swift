import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// Predicates that once brought the process down or took minutes: a long arithmetic chain (a
/// tree as deep as the chain, walked recursively until the stack overflowed) and long OR chains
/// (SQL compiled in quadratic time, then refused by SQLite as too deep).
final class LongPredicateTests: XCTestCase {
    private static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel { EntityDescription("Person") { .attribute("age", .integer64) } }
    }

    private func people(_ backend: StoreBackend, ages: ClosedRange<Int64>) throws -> StoreTestStack {
        let stack = try BackendStack(backend, model: Self.model())
        let context = stack.newContext()
        try context.performAndWait {
            for age in ages { try context.insertNewObject(forEntityName: "Person").setValue(age, forKey: "age") }
            try context.save()
        }
        return stack
    }

    private func count(_ stack: StoreTestStack, _ predicate: StorePredicate) throws -> Int {
        let context = stack.newContext()
        return try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Person", predicate: predicate)) }
    }

    func testALongArithmeticChainIsRefusedAsTooDeepAndAShorterOneWorks() throws {
        // About 3.6 kB: this crashed the process on every store, main queue and background.
        let long = "age == " + Array(repeating: "0", count: 1_800).joined(separator: " + ") + " + 1"
        XCTAssertThrowsError(try StorePredicate(format: long)) { error in
            XCTAssertEqual((error as? PredicateSyntaxError)?.code, .nestingTooDeep, "\(error)")
        }
        let short = try StorePredicate(format: "age == " + Array(repeating: "1", count: 200).joined(separator: " + "))
        for backend in [StoreBackend.sqlite, .xml, .memory] {
            let stack = try people(backend, ages: 199...201)
            XCTAssertEqual(try count(stack, short), 1, "\(backend)")
        }
    }

    func testADeepTreeBuiltInCodeIsRefusedAtFetchTime() throws {
        var expression = StoreExpression.constant(.integer(1))
        for _ in 0..<3_000 { expression = .function("add:to:", [expression, .constant(.integer(0))]) }
        let predicate = StorePredicate.comparison(StoreComparison(.keyPath("age"), .equalTo, expression))
        for backend in [StoreBackend.sqlite, .xml, .memory] {
            let stack = try people(backend, ages: 1...2)
            XCTAssertThrowsError(try count(stack, predicate), "\(backend)") { error in
                XCTAssertEqual((error as? FetchError)?.code, .unsupported, "\(backend): \(error)")
            }
        }
    }

    func testLongOrChainsCompileAndAnswerAsInMemory() throws {
        for terms in [1_000, 8_000] {
            let format = (0..<terms).map { "age == \($0 * 3)" }.joined(separator: " OR ")
            let predicate = try StorePredicate(format: format)
            var answers: [String: Int] = [:]
            for backend in [StoreBackend.sqlite, .xml] {
                let stack = try people(backend, ages: 0...600)
                answers[backend.description] = try count(stack, predicate)
            }
            XCTAssertEqual(answers["sqlite"], 201, "\(terms) terms: \(answers)")
            XCTAssertEqual(answers["sqlite"], answers["xml"], "\(terms) terms")
        }
    }
}
