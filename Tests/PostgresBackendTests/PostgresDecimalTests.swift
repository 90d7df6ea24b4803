#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import PostgresBackend
import StoreCore
import StoreTestSupport
import XCTest

/// Decimal attributes in `NUMERIC` columns: read back digit for digit, and a value a `Decimal`
/// cannot hold (`NaN`, infinities, written by another program) refused with an error, never
/// read as 0 or NULL.
final class PostgresDecimalTests: XCTestCase {
    private func container(schema: String) throws -> PersistentContainer {
        PostgresStore.register()
        let model = try ManagedObjectModel {
            EntityDescription("Price") {
                .attribute("label", .string)
                .attribute("amount", .decimal)
            }
        }
        let container = PersistentContainer(name: "Prices", managedObjectModel: model)
        container.persistentStoreDescriptions = [try PostgresTestServer.description(schema: schema)]
        try container.loadPersistentStores()
        return container
    }

    func testDecimalsReadBackDigitForDigit() throws {
        let amounts = ["0", "-0.5", "0.0001", "10000", "123456789.000012", "-98765432109876543210.12345678901234567", "1E-20"]
        let context = try container(schema: PostgresTestServer.freshSchema("dec")).newBackgroundContext()
        try context.performAndWait {
            for text in amounts {
                let price = try context.insertNewObject(forEntityName: "Price")
                try price.setValue(text, forKey: "label")
                try price.setValue(try XCTUnwrap(Decimal(string: text)), forKey: "amount")
            }
            try context.save()
            context.reset()
            for price in try context.fetch(FetchRequest<ManagedObject>(entityName: "Price")) {
                let label = try XCTUnwrap(price.value(forKey: "label") as? String)
                XCTAssertEqual(try price.value(forKey: "amount") as? Decimal, Decimal(string: label), label)
            }
        }
    }

    func testANumericADecimalCannotHoldIsAnError() throws {
        let schema = PostgresTestServer.freshSchema("dec")
        let context = try container(schema: schema).newBackgroundContext()
        try context.performAndWait {
            let price = try context.insertNewObject(forEntityName: "Price")
            try price.setValue("odd", forKey: "label")
            try price.setValue(Decimal(1), forKey: "amount")
            try context.save()
        }
        try PostgresTestCluster.sql("UPDATE \(schema).ZPRICE SET ZAMOUNT = 'NaN'")
        try context.performAndWait {
            context.reset()
            XCTAssertThrowsError(try context.fetch(FetchRequest<ManagedObject>(entityName: "Price"))) { error in
                XCTAssertEqual((error as? StoreError)?.code, .corrupt, "\(error)")
                XCTAssertTrue("\(error)".contains("NaN"), "\(error)")
            }
        }
    }
}
#endif
