import Foundation
import StoreCore
import XCTest

/// A request that cannot run — a predicate string literal that does not parse, a key the entity
/// does not have — is refused by every store, for every result type, whether or not the store
/// holds an object to evaluate it on (see ``StoreTestKit/checkQueryCases()``).
struct RefusedQuerySuite {
    let kit: StoreTestKit

    /// The predicates every store must refuse, with the code each is refused with.
    static let refused: [(predicate: StorePredicate, code: FetchError.Code, what: String)] = [
        ("label == 'x' AND AND label == 'y'", .invalidPredicate, "a literal that does not parse"),
        (.and(["label == 'x'", .not("label ==")]), .invalidPredicate, "a literal that does not parse, inside a compound"),
        ("labl == 'x'", .invalidKeyPath, "an unknown key"),
        ("label == 'x' OR NOT (titel == 'y')", .invalidKeyPath, "an unknown key, inside a compound"),
    ]

    /// What a request ends in: the number of results, or the code of its fetch error (or `nil`,
    /// with `other` set, for another error).
    private enum Outcome: Equatable {
        case results(Int)
        case refused(FetchError.Code)
        case other(String)
    }

    private func outcome(_ body: () throws -> Int) -> Outcome {
        do { return .results(try body()) } catch let error as FetchError { return .refused(error.code) } catch {
            return .other("\(error)")
        }
    }

    /// Runs every refused predicate through every result type on `context`, for `entity`.
    private func checkRefusals(in context: ManagedObjectContext, entity: String, _ situation: String) {
        context.performAndWait {
            for (predicate, code, what) in Self.refused {
                let label = "\(kit), \(situation), \(what) on \(entity)"
                let objects = FetchRequest<ManagedObject>(entityName: entity, predicate: predicate)
                XCTAssertEqual(outcome { try context.fetch(objects).count }, .refused(code), "\(label): fetch")
                XCTAssertEqual(outcome { try context.count(for: objects) }, .refused(code), "\(label): count")
                var ids = FetchRequest<ManagedObjectID>(entityName: entity)
                ids.predicate = predicate
                XCTAssertEqual(outcome { try context.fetch(ids).count }, .refused(code), "\(label): object IDs")
                var rows = FetchRequest<FetchedDictionary>(entityName: entity)
                rows.predicate = predicate
                rows.propertiesToFetch = ["label"]
                XCTAssertEqual(outcome { try context.fetch(rows).count }, .refused(code), "\(label): dictionaries")
            }
        }
    }

    /// A new store that has never saved anything refuses them; so does a store that holds other
    /// entities' objects but none of the fetched one, also after it is opened again.
    func testRequestsThatCannotRunAreRefusedOnAnEmptyStore() {
        kit.check(#function) {
            let stack = try kit.makeStack(model: BlogModel.make(), name: "Refused")
            checkRefusals(in: stack.newContext(), entity: "Item", "a new store")
            checkRefusals(in: stack.newContext(), entity: "Book", "a new store")
            let context = stack.newContext()
            try context.performAndWait {
                let post = try Post(context: context)
                post.title = "Alone"
                try context.save()
            }
            try stack.reopen()
            checkRefusals(in: stack.newContext(), entity: "Item", "a store without items")
        }
    }

    func run() {
        testRequestsThatCannotRunAreRefusedOnAnEmptyStore()
    }
}
