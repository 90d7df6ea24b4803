import XCTest
@testable import SQLiteBackend
import StoreCore
import StoreSQL
import StoreTestSupport

/// A column may hold another storage class than its attribute's (another program's writes;
/// SQLite's type affinity keeps what it cannot convert): a fetched object reads it as SQLite
/// converts it, and exactly as a dictionary fetch of the same row does.
final class SQLiteStorageClassTests: XCTestCase {
    func testObjectsAndDictionariesReadOtherStorageClassesAlike() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("things.sqlite")
        let model = try EveryTypeGraph.makeModel()
        let container = try TestStack.sqliteContainer(model, at: url)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let thing = ManagedObject(entity: try XCTUnwrap(model.entitiesByName["Thing"]), insertInto: context)
            try thing.setValue("odd", forKey: "name")
            try context.save()
        }
        try container.persistentStoreCoordinator.persistentStores.forEach { try container.persistentStoreCoordinator.removePersistentStore($0) }
        let writer = try SQLiteConnection(path: url.path, mode: .readWrite, log: .disabled)
        // Each survives its column's affinity: a BLOB in a text column, text in an integer
        // column, an INTEGER in a date column, a REAL too precise for an integer column.
        try writer.execute("""
            UPDATE ZTHING SET ZSTRING = X'636166C3A9', ZFLAG = 'yes', ZDATE = 60, ZINT64 = 2.5,
                ZINT32 = 7, ZDOUBLE = 3, ZINT16 = NULL WHERE ZNAME = 'odd'
            """)
        let read = try writer.scalar("SELECT typeof(ZSTRING) || typeof(ZFLAG) || typeof(ZDATE) || typeof(ZINT64) FROM ZTHING WHERE ZNAME = 'odd'", [])
        XCTAssertEqual(read, .text("blobtextintegerreal"), "the test's premise: the storage classes survived")

        let reopened = try TestStack.sqliteContainer(model, at: url)
        let reader = reopened.newBackgroundContext()
        try reader.performAndWait {
            let keys = ["string", "flag", "date", "int64", "int32", "double", "int16"]
            let expected: [String: StoreValue] = [
                "string": .string("café"), "flag": .boolean(false), "date": .date(Date(timeIntervalSinceReferenceDate: 60)),
                "int64": .null, "int32": .integer(7), "double": .double(3), "int16": .null,
            ]
            var objects = FetchRequest<ManagedObject>(entityName: "Thing")
            objects.returnsObjectsAsFaults = false
            let thing = try XCTUnwrap(try reader.fetch(objects).first)
            XCTAssertEqual(try thing.value(forKey: "string") as? String, "café")
            XCTAssertEqual(try thing.value(forKey: "flag") as? Bool, false)
            XCTAssertEqual(try thing.value(forKey: "date") as? Date, Date(timeIntervalSinceReferenceDate: 60))
            XCTAssertNil(try thing.value(forKey: "int64"))
            XCTAssertEqual((try thing.value(forKey: "int32") as? any BinaryInteger).map { Int($0) }, 7)
            XCTAssertEqual(try thing.value(forKey: "double") as? Double, 3)
            XCTAssertNil(try thing.value(forKey: "int16"))
            var dictionaries = FetchRequest<FetchedDictionary>(entityName: "Thing")
            dictionaries.propertiesToFetch = keys.map { .init(stringLiteral: $0) }
            let row = try XCTUnwrap(try reader.fetch(dictionaries).first)
            for key in keys { XCTAssertEqual(row[key] ?? .null, expected[key], "dictionary, \(key)") }
        }
    }
}
