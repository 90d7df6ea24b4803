import Foundation
import XCTest
@testable import SQLiteBackend
import StoreCore
import StoreSQL
import StoreTestSupport

/// The compiled-SQL cache over the whole shared query table: every case compiled from the
/// cache — after a twin with every constant changed (same kinds, same equal pairs) has put its
/// shape's SQL there — is exactly what compiling it afresh gives: the same text, the same
/// bound values, or the same error.
final class SQLCompilerShapeCacheTests: XCTestCase {
    /// A different value of the same kind; equal values stay equal, different ones different.
    private static func changed(_ value: StoreValue) -> StoreValue {
        switch value {
        case .null, .objectID: value
        case .integer(let number): .integer(number &+ 7919)
        case .double(let number): .double(number * 1.5 + 0.25)
        case .float(let number): .float(number * 1.5 + 0.25)
        case .decimal(let number): .decimal(number + 1)
        case .string(let text): .string(text + "·x")
        case .boolean(let flag): .boolean(!flag)
        case .date(let date): .date(date.addingTimeInterval(13.5))
        case .data(let data): .data(data + [0x42])
        case .uuid(let uuid): .uuid(UUID(uuid: (uuid.uuid.15, uuid.uuid.14, uuid.uuid.13, uuid.uuid.12, uuid.uuid.11, uuid.uuid.10, uuid.uuid.9, uuid.uuid.8,
                                                 uuid.uuid.7, uuid.uuid.6, uuid.uuid.5, uuid.uuid.4, uuid.uuid.3, uuid.uuid.2, uuid.uuid.1, uuid.uuid.0 &+ 1)))
        case .uri(let url): .uri(url.appendingPathComponent("x"))
        }
    }

    private static func changed(_ predicate: StorePredicate) -> StorePredicate {
        switch predicate {
        case .constant: predicate
        case .and(let parts): .and(parts.map(changed))
        case .or(let parts): .or(parts.map(changed))
        case .not(let inner): .not(changed(inner))
        case .comparison(let comparison):
            .comparison(StoreComparison(changed(comparison.left), comparison.operator, changed(comparison.right), modifier: comparison.modifier, options: comparison.options))
        }
    }

    private static func changed(_ expression: StoreExpression) -> StoreExpression {
        switch expression {
        case .constant(let value): .constant(changed(value))
        case .aggregate(let items): .aggregate(items.map(changed))
        case .function(let name, let arguments): .function(name, arguments.map(changed))
        case .conditional(let predicate, let then, let otherwise): .conditional(changed(predicate), changed(then), changed(otherwise))
        case .member(let base, let key): .member(changed(base), key)
        case .subquery(let collection, let variable, let predicate): .subquery(collection: changed(collection), variable: variable, predicate: changed(predicate))
        case .evaluatedObject, .keyPath, .variable: expression
        }
    }

    /// A compiled query, or the code of the error compiling it threw.
    private enum Outcome: Equatable {
        case query(String, [SQLValue])
        case error(String)
    }

    private static func outcome(_ body: () throws -> CompiledQuery) -> Outcome {
        do {
            let query = try body()
            return .query(query.sql, query.bindings)
        } catch let error as FetchError {
            return .error("\(error.code)")
        } catch {
            return .error("\(error)")
        }
    }

    func testEveryQueryCaseFromTheCacheIsWhatCompilingItGives() throws {
        let fixture = try QueryFixture()
        let schema = SQLSchema(model: fixture.model)
        let cached = SQLCompiler(schema: schema, model: fixture.model, cacheCapacity: 10_000)
        let fresh = SQLCompiler(schema: schema, model: fixture.model, cacheCapacity: 0)
        let columns = ["t0.Z_PK", "t0.Z_ENT"]
        var compared = 0
        for testCase in QueryCases.all {
            let arguments = testCase.arguments.map { $0.value(in: fixture) }
            // `now()` is read at each compile (such cases have no shape, so nothing to compare).
            guard !testCase.format.contains("now()"),
                let parsed = try? StorePredicate(format: testCase.format, argumentArray: arguments)
            else { continue }
            let predicate = parsed.substituting(variables: testCase.variables.mapValues { $0.storeValue(in: fixture) })
            // Plain, then sorted with a limit and offset (the twin has others), as objects and as counts.
            for (limit, offset) in [(0, 0), (3, 1)] {
                var request = StoreFetchRequest(entityName: "Quake", resultType: .managedObjectID)
                request.predicate = predicate
                request.sortDescriptors = [.ascending("magnitude")]
                request.fetchLimit = limit
                request.fetchOffset = offset
                var twin = request
                twin.predicate = Self.changed(predicate)
                if limit > 0 { (twin.fetchLimit, twin.fetchOffset) = (limit + 4, offset + 2) }
                _ = Self.outcome { try cached.selectObjects(twin, columns: columns) }
                _ = Self.outcome { try cached.count(twin) }
                let label = "\(testCase) limit \(limit) offset \(offset)"
                XCTAssertEqual(
                    Self.outcome { try cached.selectObjects(request, columns: columns) },
                    Self.outcome { try fresh.selectObjects(request, columns: columns) }, label, line: testCase.line)
                XCTAssertEqual(Self.outcome { try cached.count(request) }, Self.outcome { try fresh.count(request) }, "\(label) count", line: testCase.line)
                compared += 2
            }
        }
        // Most cases have a shape: they were answered from the cache, not compiled again.
        let statistics = cached.cache.statistics
        XCTAssertGreaterThan(compared, 1000)
        XCTAssertGreaterThan(statistics.hits, 600, "\(statistics)")
        print("shape cache over the query table: \(compared) compared, \(statistics.hits) hits, \(statistics.misses) misses")
    }
}
