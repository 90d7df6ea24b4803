import Foundation
import StoreCore
import XCTest

/// The shared query table run against a real store of any type: the fixture is saved into the
/// store, then every case is fetched through `PersistentStore.execute` and must match the
/// quakes the table expects (or fail with the error code it expects).
///
/// For example:
///
/// ```swift
/// let store = try SQLiteStore(PersistentStoreLoadRequest(description: description, model: QueryFixture.makeModel()))
/// try QueryCaseSuite.run(on: store)
/// ```
public enum QueryCaseSuite {
    /// Saves the fixture into `store` (which must be empty and use `QueryFixture.makeModel()`).
    public static func load(into store: any PersistentStore) throws -> QueryFixture {
        let fixture = try QueryFixture(storeIdentifier: store.identifier)
        var changes = StoreChangeSet()
        changes.inserted = fixture.snapshots.values.sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
        try store.save(changes)
        return fixture
    }

    /// Runs every case of ``QueryCases/all`` against `store` and reports each mismatch as a test
    /// failure. Returns how many cases matched.
    @discardableResult
    public static func run(on store: any PersistentStore, file: StaticString = #filePath) throws -> Int {
        try check(store, holding: try load(into: store), file: file)
    }

    /// Runs every case of ``QueryCases/all`` and ``SortCases/all`` against `store`, which holds
    /// `fixture` (loaded by ``load(into:)``, possibly by another instance of the same store), and
    /// reports each mismatch as a test failure. Returns how many cases matched.
    ///
    /// A case whose format `mayRefuse` accepts may instead fail with `FetchError.unsupported`
    /// (a construct the store documents it cannot run, such as PostgreSQL's `FUNCTION` of stored
    /// values); it must still never give a wrong answer.
    @discardableResult
    public static func check(
        _ store: any PersistentStore, holding fixture: QueryFixture, mayRefuse: (String) -> Bool = { _ in false }, file: StaticString = #filePath
    ) throws -> Int {
        let names = Dictionary(uniqueKeysWithValues: fixture.ids.map { ($0.value, $0.key) })
        var matched = 0
        for testCase in QueryCases.all {
            let arguments = testCase.arguments.map { $0.value(in: fixture) }
            guard let parsed = try? StorePredicate(format: testCase.format, argumentArray: arguments) else { continue }
            var request = StoreFetchRequest(entityName: "Quake", resultType: .managedObjectID)
            request.predicate = parsed.substituting(variables: testCase.variables.mapValues { $0.storeValue(in: fixture) })
            switch testCase.expected {
            case .parseError:
                XCTFail("\(testCase) parsed as \(parsed)", file: file, line: testCase.line)
            case .evaluationError(let code):
                XCTAssertThrowsError(try store.execute(request), "\(testCase)", file: file, line: testCase.line) { error in
                    XCTAssertEqual((error as? FetchError)?.code, code, "\(testCase): \(error)", file: file, line: testCase.line)
                }
            case .matches(let expected):
                do {
                    guard case .objectIDs(let ids) = try store.execute(request) else {
                        XCTFail("\(testCase): the store did not return IDs", file: file, line: testCase.line)
                        continue
                    }
                    let found = Set(ids.compactMap { names[$0] })
                    XCTAssertEqual(found, expected, "\(testCase) on \(store.type)", file: file, line: testCase.line)
                    if found == expected { matched += 1 }
                } catch let error as FetchError where error.code == .unsupported && mayRefuse(testCase.format) {
                    continue
                } catch {
                    XCTFail("\(testCase) on \(store.type): \(error)", file: file, line: testCase.line)
                }
            }
        }
        return matched + checkOrder(store, holding: fixture, names: names, file: file)
    }

    /// Runs every case of ``SortCases/all`` against `store`: objects and groups must come back in
    /// the table's order. Returns how many cases matched.
    static func checkOrder(_ store: any PersistentStore, holding fixture: QueryFixture, names: [ManagedObjectID: String], file: StaticString) -> Int {
        var matched = 0
        for sortCase in SortCases.all {
            do {
                let found: [String?]
                switch try store.execute(SortCases.request(for: sortCase)) {
                case .objectIDs(let ids): found = ids.map { names[$0] }
                case .dictionaries(let rows):
                    found = rows.map { row in
                        if case .string(let key)? = row[sortCase.groupBy ?? ""] { key } else { nil }
                    }
                default:
                    XCTFail("\(sortCase): the store returned another kind of result", file: file, line: sortCase.line)
                    continue
                }
                XCTAssertEqual(found, sortCase.expected, "\(sortCase) on \(store.type)", file: file, line: sortCase.line)
                if found == sortCase.expected { matched += 1 }
            } catch {
                XCTFail("\(sortCase) on \(store.type): \(error)", file: file, line: sortCase.line)
            }
        }
        return matched
    }
}
