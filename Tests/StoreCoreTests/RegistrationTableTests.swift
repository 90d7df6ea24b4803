import Foundation
@testable import StoreCore
import XCTest

/// A context's registration table must behave as a dictionary keyed by object ID, whatever the
/// keys: dense, sparse, negative, temporary, or IDs whose equal spaces were made separately.
final class RegistrationTableTests: XCTestCase {
    /// Removes `id` from both (one time in `oneIn`) or registers a new object under it in both.
    private static func removeOrRegister(
        _ id: ManagedObjectID, oneIn: Int, entity: EntityDescription, table: inout RegistrationTable,
        expected: inout [ManagedObjectID: ManagedObject], generator: inout SeededGenerator
    ) {
        if Int.random(in: 0..<oneIn, using: &generator) == 0 {
            table[id] = nil
            expected[id] = nil
        } else {
            let object = ManagedObject(entity: entity, insertInto: nil)
            table[id] = object
            expected[id] = object
        }
    }

    func testRandomOperationsMatchADictionary() {
        let entity = EntityDescription("Post")
        let spaces = [
            ManagedObjectID(entityName: "Post", storeIdentifier: "A", primaryKey: 1),
            ManagedObjectID(entityName: "Tag", storeIdentifier: "A", primaryKey: 1),
            ManagedObjectID(entityName: "Post", storeIdentifier: "B", primaryKey: 1),
        ]
        var generator = SeededGenerator(seed: 38)
        var table = RegistrationTable()
        var expected: [ManagedObjectID: ManagedObject] = [:]
        for step in 0..<20_000 {
            let prototype = spaces[Int.random(in: 0..<spaces.count, using: &generator)]
            let key: Int64 = switch Int.random(in: 0..<10, using: &generator) {
            case 0: Int64.random(in: 1...Int64(Int32.max), using: &generator)   // far beyond the array
            case 1: Int64.random(in: -5...0, using: &generator)
            default: Int64.random(in: 1...3_000, using: &generator)
            }
            // Half the IDs get a space of their own, equal to the prototype's but not identical.
            let id = Bool.random(using: &generator)
                ? ManagedObjectID(primaryKey: key, sameEntityAndStoreAs: prototype)
                : ManagedObjectID(entityName: prototype.entityName, storeIdentifier: prototype.storeIdentifier ?? "", primaryKey: key)
            Self.removeOrRegister(id, oneIn: 3, entity: entity, table: &table, expected: &expected, generator: &generator)
            XCTAssertTrue(table[id] === expected[id], "step \(step)")
            XCTAssertEqual(table.count, expected.count, "step \(step)")
        }
        for (id, object) in expected { XCTAssertTrue(table[id] === object) }
        XCTAssertEqual(Set(table.objects.map(ObjectIdentifier.init)), Set(expected.values.map(ObjectIdentifier.init)))
    }

    /// A batched fetch walking a large table registers ascending keys and lets the earlier ones
    /// go, so the array's start moves up; keys below it (an old object fetched again) and a
    /// fetch that makes room first and registers from its highest key down must still be found.
    func testAWindowWalkingUpTheKeysMatchesADictionary() {
        let entity = EntityDescription("Post")
        let prototype = ManagedObjectID(entityName: "Post", storeIdentifier: "A", primaryKey: 1)
        var generator = SeededGenerator(seed: 380)
        var table = RegistrationTable()
        var expected: [ManagedObjectID: ManagedObject] = [:]
        func register(_ key: Int64) {
            let id = ManagedObjectID(primaryKey: key, sameEntityAndStoreAs: prototype)
            let object = ManagedObject(entity: entity, insertInto: nil)
            table[id] = object
            expected[id] = object
        }
        for key in Int64(1)...30_000 {
            register(key)
            if key > 600 {
                let old = ManagedObjectID(primaryKey: key - 600, sameEntityAndStoreAs: prototype)
                table[old] = nil
                expected[old] = nil
            }
            if key % 5_000 == 0 { register(Int64.random(in: 1...(key - 1_000), using: &generator)) }   // below the window
            if key % 7_001 == 0 {
                // A fetch of the next 2,000 keys, registered from the highest down.
                let last = ManagedObjectID(primaryKey: key + 2_000, sameEntityAndStoreAs: prototype)
                table.reserve(upTo: last, adding: 2_000)
                for ahead in stride(from: key + 2_000, to: key, by: -1) { register(ahead) }
            }
            XCTAssertEqual(table.count, expected.count, "key \(key)")
        }
        for (id, object) in expected { XCTAssertTrue(table[id] === object, "\(id)") }
        for key in Int64(1)...32_000 {
            let id = ManagedObjectID(primaryKey: key, sameEntityAndStoreAs: prototype)
            XCTAssertTrue(table[id] === expected[id], "key \(key)")
        }
    }

    func testTemporaryIDsAreKeptApartFromPermanentOnesWithTheSameNumber() {
        let entity = EntityDescription("Post")
        let temporaryObject = ManagedObject(entity: entity, insertInto: nil)
        let temporary = temporaryObject.objectID
        let permanent = ManagedObjectID(entityName: "Post", storeIdentifier: "A", primaryKey: temporary.key)
        let permanentObject = ManagedObject(entity: entity, insertInto: nil)
        var table = RegistrationTable()
        table[temporary] = temporaryObject
        table[permanent] = permanentObject
        XCTAssertTrue(table[temporary] === temporaryObject)
        XCTAssertTrue(table[permanent] === permanentObject)
        table[temporary] = nil
        XCTAssertNil(table[temporary])
        XCTAssertEqual(table.count, 1)
    }

    /// Temporary keys come from one process-wide sequence: a temporary space's array starts at
    /// the first key it holds, so keys below it, far beyond it, and a new run after the space was
    /// emptied (a save gave every new object its permanent ID) must all be found.
    func testTemporaryKeysOfSeveralRunsMatchADictionary() {
        let entity = EntityDescription("Post")
        let spaces = [
            ManagedObjectID.Space(entityName: "Post", storeIdentifier: nil, isTemporary: true),
            ManagedObjectID.Space(entityName: "Tag", storeIdentifier: nil, isTemporary: true),
        ]
        var generator = SeededGenerator(seed: 3_800)
        var table = RegistrationTable()
        var expected: [ManagedObjectID: ManagedObject] = [:]
        var next: Int64 = 1_000_000
        for step in 0..<30_000 {
            let space = spaces[Int.random(in: 0..<spaces.count, using: &generator)]
            let key: Int64
            switch Int.random(in: 0..<20, using: &generator) {
            case 0: key = next - Int64.random(in: 1...5_000, using: &generator)   // made earlier, registered later
            case 1: key = next + Int64.random(in: 10_000...1_000_000, using: &generator)   // far ahead
            default:
                next += Int64.random(in: 1...3, using: &generator)
                key = next
            }
            let id = ManagedObjectID(space: space, key: key)
            Self.removeOrRegister(id, oneIn: 4, entity: entity, table: &table, expected: &expected, generator: &generator)
            if step % 5_000 == 4_999 {
                // A save: every temporary ID leaves the table; the next keys start a new run.
                for id in expected.keys { table[id] = nil }
                expected.removeAll()
                next += Int64.random(in: 1...100_000, using: &generator)
            }
            XCTAssertTrue(table[id] === expected[id], "step \(step)")
            XCTAssertEqual(table.count, expected.count, "step \(step)")
        }
        for (id, object) in expected { XCTAssertTrue(table[id] === object) }
        XCTAssertEqual(Set(table.objects.map(ObjectIdentifier.init)), Set(expected.values.map(ObjectIdentifier.init)))
        table.removeUnreferenced(Array(expected.keys), where: { _ in true })
        XCTAssertEqual(table.count, expected.count, "objects the dictionary still holds are referenced")
        let ids = Array(expected.keys)
        expected.removeAll()
        table.removeUnreferenced(ids, where: { _ in true })
        XCTAssertEqual(table.count, 0)
    }

    func testRemovingUnreferencedObjectsKeepsTheOnesSomethingElseHolds() {
        let entity = EntityDescription("Post")
        let prototype = ManagedObjectID(entityName: "Post", storeIdentifier: "A", primaryKey: 1)
        var table = RegistrationTable()
        var held: [ManagedObject] = []
        var ids: [ManagedObjectID] = []
        for key in [Int64(1), 2, 3, 5_000_000_000, 5_000_000_001] {
            let id = ManagedObjectID(primaryKey: key, sameEntityAndStoreAs: prototype)
            let object = ManagedObject(entity: entity, insertInto: nil)
            if key % 2 == 1 { held.append(object) }
            table[id] = object
            ids.append(id)
        }
        table.removeUnreferenced(where: { _ in true })
        XCTAssertEqual(table.count, held.count, "objects only the table held are gone (dense and sparse keys)")
        XCTAssertEqual(Set(table.objects.map(ObjectIdentifier.init)), Set(held.map(ObjectIdentifier.init)))

        let kept = ids.filter { table[$0] != nil }
        held.removeAll()
        table.removeUnreferenced([kept[0]], where: { _ in false })
        XCTAssertEqual(table.count, kept.count, "the predicate may keep an unreferenced object")
        table.removeUnreferenced([kept[0], kept[kept.count - 1]], where: { _ in true })
        XCTAssertEqual(table.count, kept.count - 2)
        XCTAssertNil(table[kept[0]])
    }
}

/// A small deterministic generator (SplitMix64), so a failing step can be replayed.
private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
