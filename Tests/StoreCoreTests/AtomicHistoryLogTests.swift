import Foundation
@testable import StoreCore
import StowageTestKit
import XCTest

/// An atomic store's history remembers the newest transaction a deletion removed, in its file;
/// a file written before it did has the boundary inferred from its gapless numbers.
final class AtomicHistoryLogTests: XCTestCase {
    private func log(transactions count: Int) -> AtomicHistoryLog {
        var log = AtomicHistoryLog(storeIdentifier: "S")
        for key in 1...count {
            var record = HistoryRecord(author: nil, contextName: nil)
            record.changes = [(ManagedObjectID(entityName: "Quake", storeIdentifier: "S", primaryKey: Int64(key)), .insert, nil, nil)]
            log.append(record)
        }
        return log
    }

    private func deleting(_ log: AtomicHistoryLog, before number: Int64?) -> AtomicHistoryLog {
        var log = log
        let token = number.map { PersistentHistoryToken(storeIdentifier: "S", transactionNumber: $0) }
        _ = log.delete(PersistentHistoryFilter(.deleteHistory(before: token), storeIdentifier: "S"))
        return log
    }

    /// The log as a file holds it, read back; `legacy` drops the boundary, as older files lack it.
    private func reread(_ log: AtomicHistoryLog, legacy: Bool) throws -> AtomicHistoryLog {
        guard case .dictionary(var entries) = log.propertyList else { throw XCTSkip("the history is not a dictionary") }
        if legacy { entries["purgedThrough"] = nil }
        let data = BinaryPropertyListWriter().write(.dictionary(entries))
        return try AtomicHistoryLog(stored: .data(data), storeIdentifier: "S", model: try QuakeModel.make(), url: nil)
    }

    func testTheBoundaryIsKeptInTheFile() throws {
        let trimmed = deleting(log(transactions: 5), before: 3)
        XCTAssertEqual(trimmed.purgedThrough, 3)
        XCTAssertEqual(try reread(trimmed, legacy: false).purgedThrough, 3)
        XCTAssertEqual(try reread(deleting(trimmed, before: 1), legacy: false).purgedThrough, 3, "an older deletion moves nothing")
    }

    func testAFileWithoutTheBoundaryHasItInferred() throws {
        XCTAssertEqual(try reread(log(transactions: 4), legacy: true).purgedThrough, 0, "nothing deleted")
        XCTAssertEqual(try reread(deleting(log(transactions: 4), before: 2), legacy: true).purgedThrough, 2)
        XCTAssertEqual(try reread(deleting(log(transactions: 4), before: nil), legacy: true).purgedThrough, 4, "everything deleted")
    }
}
