import Foundation
import StoreCore
import XCTest

/// Batched fetches (`fetchBatched`, ``FetchRequest/fetchBatchSize``) on `BlogModel`'s `Book`s
/// and `Film`s (sub-entities of the abstract `Item`, in one table in the SQL stores): every
/// object, in the order a plain fetch gives, whether a batch's rows are consecutive, have gaps
/// (deleted rows), are of one sub-entity only, or are sorted against the order they were saved
/// in; unsaved changes folded in; the objects of a finished batch let go; and rows read ahead
/// for later batches not used once another context saved.
struct BatchedFetchingSuite {
    let kit: StoreTestKit
    private static let itemCount = 30
    private static let deleted: Set<Int> = [5, 6, 17]

    func run() {
        kit.check("batched fetches give every object in order") { try everyObjectInOrder() }
        kit.check("batched fetches fold in unsaved changes") { try unsavedChanges() }
        kit.check("a batched fetch lets go of a finished batch's objects") { try finishedBatchesLetGo() }
        kit.check("a batched fetch read in order shows what was saved and changed since it began") { try changesWhileIterating() }
    }

    /// A stack holding items `i00`… (books at even numbers, films at odd ones), some deleted.
    private func savedItems() throws -> StoreTestStack {
        let stack = try kit.makeStack(model: BlogModel.make())
        let context = stack.newContext()
        try context.performAndWait {
            var items: [ManagedObject] = []
            for number in 0..<Self.itemCount {
                let item = try context.insertNewObject(forEntityName: number % 2 == 0 ? "Book" : "Film")
                try item.setValue(String(format: "i%02d", number), forKey: "label")
                items.append(item)
            }
            try context.save()
            for number in Self.deleted { context.delete(items[number]) }
            try context.save()
        }
        try stack.reopen()
        return stack
    }

    private func labels(_ objects: some Sequence<ManagedObject>) throws -> [String] {
        try objects.map { try $0.value(forKey: "label") as? String ?? "?" }
    }

    private func everyObjectInOrder() throws {
        let stack = try savedItems()
        let context = stack.newContext()
        try context.performAndWait {
            let kept = (0..<Self.itemCount).filter { !Self.deleted.contains($0) }.map { String(format: "i%02d", $0) }
            let requests: [(String, FetchRequest<ManagedObject>, [String])] = [
                ("items by label", {
                    var request = FetchRequest<ManagedObject>(entityName: "Item")
                    request.sortDescriptors = [.ascending("label")]
                    return request
                }(), kept),
                ("items by label, descending", {
                    var request = FetchRequest<ManagedObject>(entityName: "Item")
                    request.sortDescriptors = [.descending("label")]
                    return request
                }(), kept.reversed()),
                ("books only", {
                    var request = FetchRequest<ManagedObject>(entityName: "Book")
                    request.sortDescriptors = [.ascending("label")]
                    return request
                }(), kept.filter { (Int($0.dropFirst()) ?? 1) % 2 == 0 }),
                ("films after i10", {
                    var request = FetchRequest<ManagedObject>(entityName: "Film")
                    request.predicate = "label > 'i10'"
                    request.sortDescriptors = [.ascending("label")]
                    return request
                }(), kept.filter { (Int($0.dropFirst()) ?? 0) % 2 == 1 && $0 > "i10" }),
            ]
            for (name, plain, expected) in requests {
                XCTAssertEqual(try labels(context.fetch(plain)), expected, "\(kit), \(name): the plain fetch")
                for batchSize in [1, 4, 7, 100] {
                    var request = plain
                    request.fetchBatchSize = batchSize
                    let results = try context.fetchBatched(request)
                    XCTAssertEqual(results.count, expected.count, "\(kit), \(name), batches of \(batchSize)")
                    XCTAssertEqual(try labels(results), expected, "\(kit), \(name), batches of \(batchSize)")
                    XCTAssertEqual(try labels(results.objectIDs.map { try context.existingObject(with: $0) }), expected, "\(kit), \(name): the IDs")
                }
            }
        }
    }

    /// Every item (films among them) by label, `batchSize` at a time.
    private func itemsByLabel(batchSize: Int) -> FetchRequest<ManagedObject> {
        var request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortDescriptors = [.ascending("label")]
        request.fetchBatchSize = batchSize
        return request
    }

    private func unsavedChanges() throws {
        let stack = try savedItems()
        let context = stack.newContext()
        try context.performAndWait {
            var request = itemsByLabel(batchSize: 4)
            let all = try context.fetch(request)
            context.delete(all[0])
            try all[1].setValue("i99", forKey: "label")
            let added = try context.insertNewObject(forEntityName: "Film")
            try added.setValue("i50", forKey: "label")
            var expected = try labels(all.dropFirst(2)) + ["i50", "i99"]
            XCTAssertEqual(try labels(context.fetchBatched(request)), expected, "\(kit): the deleted one left out, the changed and new ones in place")
            request.includesPendingChanges = false
            try context.save()
            expected = try labels(context.fetch(request))
            XCTAssertEqual(try labels(context.fetchBatched(request)), expected, "\(kit): after the save")
        }
    }

    private func finishedBatchesLetGo() throws {
        let stack = try savedItems()
        let context = stack.newContext()
        try context.performAndWait {
            let request = itemsByLabel(batchSize: 4)
            let results = try context.fetchBatched(request)
            XCTAssertTrue(context.registeredObjects.isEmpty, "\(kit): only IDs are fetched up front")
            let held = results[1]
            var most = 0
            for item in results {
                _ = try item.value(forKey: "label")
                most = max(most, context.registeredObjects.count)
            }
            XCTAssertLessThanOrEqual(most, 4 + 1, "\(kit): one batch and the object held, not every object read")
            XCTAssertTrue(results[1] === held, "\(kit): an object still held is the one read again")
            XCTAssertEqual(try held.value(forKey: "label") as? String, "i01", "\(kit)")
        }
    }

    /// Read in order, the second batch brings the third's rows too (``FetchedResults``); another
    /// context then renames one item of the third batch and deletes another, and this context
    /// changes a third without saving: the third batch shows all three.
    private func changesWhileIterating() throws {
        let stack = try savedItems()
        let context = stack.newContext()
        let writer = stack.newContext()
        try context.performAndWait {
            let kept = (0..<Self.itemCount).filter { !Self.deleted.contains($0) }.map { String(format: "i%02d", $0) }
            let results = try context.fetchBatched(itemsByLabel(batchSize: 4))
            XCTAssertEqual(try labels(results[0..<8]), Array(kept[0..<8]), "\(kit): the first two batches")
            let renamed = results.objectIDs[9], removed = results.objectIDs[10], mine = results.objectIDs[11]
            try writer.performAndWait {
                try writer.existingObject(with: renamed).setValue("elsewhere", forKey: "label")
                writer.delete(try writer.existingObject(with: removed))
                try writer.save()
            }
            try context.existingObject(with: mine).setValue("here", forKey: "label")
            XCTAssertEqual(try results[8].value(forKey: "label") as? String, kept[8], "\(kit)")
            XCTAssertEqual(try results[9].value(forKey: "label") as? String, "elsewhere", "\(kit): renamed by another context after the rows were read ahead")
            XCTAssertNil(try results[10].value(forKey: "label") as? String, "\(kit): deleted by another context after the rows were read ahead")
            XCTAssertTrue(results[10].isDeleted, "\(kit): an inaccessible fault, deleted (shouldDeleteInaccessibleFaults)")
            XCTAssertEqual(try results[11].value(forKey: "label") as? String, "here", "\(kit): this context's unsaved change")
            XCTAssertEqual(try labels(results[12...]), Array(kept[12...]), "\(kit): the batches after")
        }
    }
}
