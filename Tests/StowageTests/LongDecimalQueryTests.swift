import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// A Decimal attribute holding more digits than a double keeps (12345678901234567.0123456789, as
/// a finance or dosing app stores) is found by `amount == %@` with the same value on every store.
/// SQLite compares decimals as doubles; the constant was converted with Foundation's
/// `NSDecimalNumber.doubleValue`, which for such values is off in the last place
/// (12345678901234570 instead of the 12345678901234568 the stored digits read as), so the
/// object was not found.
final class LongDecimalQueryTests: XCTestCase {
    func testLongDecimalEqualsItselfInAPredicateOnEveryStore() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Bolus") {
                .attribute("amount", .decimal, optional: true)
            }
        }
        let amount = try XCTUnwrap(Decimal(string: "12345678901234567.0123456789"))
        forEachBackend { backend in
            let stack = try BackendStack(backend, model: model)
            let context = stack.newContext()
            try context.performAndWait {
                let bolus = try context.insertNewObject(forEntityName: "Bolus")
                try bolus.setValue(amount, forKey: "amount")
                try context.save()
            }
            try stack.reopen()
            let reader = stack.newContext()
            try reader.performAndWait {
                let found = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Bolus", predicate: try .format("amount == %@", amount)))
                XCTAssertEqual(found.count, 1, "\(backend)")
                XCTAssertEqual(try found.first?.value(forKey: "amount") as? Decimal, amount, "\(backend)")
                let above = try reader.count(for: FetchRequest<ManagedObject>(entityName: "Bolus", predicate: try .format("amount > %@", amount)))
                XCTAssertEqual(above, 0, "\(backend)")
            }
        }
    }
}
