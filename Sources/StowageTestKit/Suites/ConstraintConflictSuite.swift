import Foundation
import StoreCore
import XCTest

/// The import-and-dedupe pattern: new objects that share a uniqueness constraint's values with
/// stored objects (or with each other) are resolved on save by the context's merge policy —
/// object-trump, store-trump and error — with counts and values read back after a reopen.
struct ConstraintConflictSuite {
    let kit: StoreTestKit
    private static let recordCount = 1_000

    /// Inserts quakes `q0`… with the magnitude and place given (plus `extra` objects) and saves
    /// under `policy`; returns the new objects in insertion order, or the save's error.
    private func importQuakes(
        into stack: StoreTestStack, policy: MergePolicy, magnitude: Double, place: String, extra: [(code: String, magnitude: Double)] = []
    ) throws -> (objects: [ManagedObjectID], isInserted: [Bool], error: (any Error)?) {
        let context = stack.newContext()
        context.mergePolicy = policy
        return try context.performAndWait {
            var objects: [ManagedObject] = []
            for index in 0..<Self.recordCount {
                objects.append(try makeQuake(in: context, code: "q\(index)", magnitude: magnitude, place: place))
            }
            for (code, magnitude) in extra {
                objects.append(try makeQuake(in: context, code: code, magnitude: magnitude, place: place))
            }
            var failure: (any Error)?
            do { try context.save() } catch { failure = error }
            if failure != nil {
                XCTAssertEqual(context.insertedObjects.count, objects.count, "\(kit): a refused save keeps the context's changes")
            }
            return (objects.map(\.objectID), objects.map(\.isInserted), failure)
        }
    }

    private func makeQuake(in context: ManagedObjectContext, code: String, magnitude: Double, place: String) throws -> ManagedObject {
        let quake = try context.insertNewObject(forEntityName: "Quake")
        try quake.setValue(code, forKey: "code")
        try quake.setValue(magnitude, forKey: "magnitude")
        try quake.setValue(place, forKey: "place")
        return quake
    }

    /// Every stored quake's magnitude and place, by code, after a reopen.
    private func storedQuakes(_ stack: StoreTestStack) throws -> [String: (magnitude: Double, place: String, id: ManagedObjectID)] {
        try stack.reopen()
        let context = stack.newContext()
        return try context.performAndWait {
            var result: [String: (Double, String, ManagedObjectID)] = [:]
            for quake in try context.fetch(FetchRequest<ManagedObject>(entityName: "Quake")) {
                let code = try quake.value(forKey: "code") as? String ?? ""
                XCTAssertNil(result[code], "\(kit): one stored quake per code (\(code))")
                result[code] = (try quake.value(forKey: "magnitude") as? Double ?? -1, try quake.value(forKey: "place") as? String ?? "", quake.objectID)
            }
            return result
        }
    }

    /// `Account` with optional `team` and `handle`, unique together.
    private static func handleModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Account", uniquenessConstraints: [["team", "handle"]]) {
                .attribute("team", .string, optional: true)
                .attribute("handle", .string, optional: true)
            }
        }
    }

    /// `Sample` unique by `taken` (a date), `Label` unique by `name`.
    private static func sampleModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Sample", uniquenessConstraints: [["taken"]]) {
                .attribute("taken", .date, optional: false)
                .attribute("value", .double, optional: false, defaultValue: 0.0)
                .attribute("note", .string)
            }
            EntityDescription("Label", uniquenessConstraints: [["name"]]) {
                .attribute("name", .string, optional: false)
                .attribute("rank", .integer64, optional: false, defaultValue: 0)
            }
        }
    }

    /// More stored rows than one list of values held before (10,000): a save checks each
    /// constraint with one fetch of its values (one bound list in SQL stores), on text — and on
    /// dates, bound as numbers.
    private func checkManyStoredRows() {
        kit.check("constraint conflicts with more stored rows than one list of values held") {
            let stack = try kit.makeStack(model: try Self.sampleModel())
            let stored = 10_200, added = 100, samples = 300
            let start = Date(timeIntervalSinceReferenceDate: 700_000_000.25)
            /// Inserts labels `0..<count` and samples `0..<count - stored + samples` with
            /// `value`/`rank` and saves under `policy`.
            func save(count: Int, value: Double, note: String?, policy: MergePolicy) throws -> [ManagedObjectID] {
                let context = stack.newContext()
                context.mergePolicy = policy
                return try context.performAndWait {
                    var made: [ManagedObject] = []
                    for index in 0..<count {
                        let label = try context.insertNewObject(forEntityName: "Label")
                        try label.setValue("label \(index)", forKey: "name")
                        try label.setValue(Int(value), forKey: "rank")
                        guard index < count - stored + samples else { continue }
                        let sample = try context.insertNewObject(forEntityName: "Sample")
                        try sample.setValue(start.addingTimeInterval(Double(index) * 60), forKey: "taken")
                        try sample.setValue(value, forKey: "value")
                        if let note { try sample.setValue(note, forKey: "note") }
                        made.append(sample)
                    }
                    try context.save()
                    return made.map(\.objectID)
                }
            }
            let first = try save(count: stored, value: 1, note: "stored", policy: .error)
            let second = try save(count: stored + added, value: 2, note: nil, policy: .mergeByPropertyObjectTrump)
            XCTAssertEqual(second[0], first[0], "\(kit): the new sample became the stored one")
            XCTAssertEqual(second[samples - 1], first[samples - 1], "\(kit)")
            try stack.reopen()
            let reader = stack.newContext()
            try reader.performAndWait {
                let read = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Sample"))
                XCTAssertEqual(read.count, samples + added, "\(kit): one sample per date")
                XCTAssertEqual(Set(try read.map { try $0.value(forKey: "value") as? Double }), [2], "\(kit): object-trump: the new values")
                // Object-trump writes every attribute of the new object, the ones it left unset too.
                XCTAssertEqual(try read.filter { try $0.value(forKey: "note") != nil }.count, 0, "\(kit)")
                let labels = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Label"))
                XCTAssertEqual(labels.count, stored + added, "\(kit): one label per name")
                XCTAssertEqual(Set(try labels.map { try $0.value(forKey: "rank") as? Int64 }), [2], "\(kit)")
                // A fetch with more values in one IN list than PostgreSQL takes parameters (65,535).
                let names = (0..<70_000).map { "label \($0)" }
                let request = FetchRequest<ManagedObject>(
                    entityName: "Label", predicate: try StorePredicate(format: "name IN %@", argumentArray: [names]))
                XCTAssertEqual(try reader.count(for: request), stored + added, "\(kit): a 70,000-value IN list")
            }
        }
    }

    /// What a policy subclass sees after object-trump resolved new objects onto stored ones: each
    /// is the stored object now, its committed values the stored row's, its changes the values
    /// that differ from it (none: the object is clean and the save leaves its row alone).
    private func checkResolvedObjectState() {
        kit.check("a new object resolved onto a stored one holds the stored row as committed values") {
            let stack = try kit.makeStack(model: try Self.sampleModel())
            let taken = Date(timeIntervalSinceReferenceDate: 800_000_000)
            let seeded = stack.newContext()
            let storedIDs = try seeded.performAndWait {
                let objects = try (0..<2).map { index -> ManagedObject in
                    let sample = try seeded.insertNewObject(forEntityName: "Sample")
                    try sample.setValue(taken.addingTimeInterval(Double(index)), forKey: "taken")
                    try sample.setValue(1.0, forKey: "value")
                    try sample.setValue("stored", forKey: "note")
                    return sample
                }
                try seeded.save()
                return objects.map(\.objectID)
            }
            /// Records each conflicting object's state right after object-trump resolved it.
            final class Inspecting: MergePolicy, @unchecked Sendable {
                // @unchecked: called on the saving context's queue only.
                var seen: [(id: ManagedObjectID, inserted: Bool, updated: Bool, changed: [String: Any], committed: [String: Any])] = []
                var objects: [ManagedObject] = []
                override func resolve(constraintConflicts conflicts: [ConstraintConflict], in context: ManagedObjectContext) throws {
                    try super.resolve(constraintConflicts: conflicts, in: context)
                    seen = objects.map { ($0.objectID, $0.isInserted, $0.isUpdated, $0.changedValues(), $0.committedValues(forKeys: nil)) }
                }
            }
            let policy = Inspecting(merge: .mergeByPropertyObjectTrump)
            let context = stack.newContext()
            context.mergePolicy = policy
            try context.performAndWait {
                // One new object changes the value (and leaves the note unset), one repeats the stored values.
                for (index, value, note) in [(0, 2.0, nil), (1, 1.0, "stored")] as [(Int, Double, String?)] {
                    let sample = try context.insertNewObject(forEntityName: "Sample")
                    try sample.setValue(taken.addingTimeInterval(Double(index)), forKey: "taken")
                    try sample.setValue(value, forKey: "value")
                    try sample.setValue(note, forKey: "note")
                    policy.objects.append(sample)
                }
                try context.save()
            }
            XCTAssertEqual(policy.seen.map(\.id), storedIDs, "\(kit): each new object became the stored one")
            XCTAssertEqual(policy.seen.map(\.inserted), [false, false], "\(kit)")
            XCTAssertEqual(policy.seen.map(\.updated), [true, false], "\(kit): only the one with other values changed")
            let changed = policy.seen.first?.changed ?? [:]
            XCTAssertEqual(Set(changed.keys), ["value", "note"], "\(kit): \(changed)")
            XCTAssertEqual(changed["value"] as? Double, 2, "\(kit)")
            XCTAssertEqual(policy.seen.last?.changed.isEmpty, true, "\(kit)")
            let committed = policy.seen.first?.committed ?? [:]
            XCTAssertEqual(committed["value"] as? Double, 1, "\(kit): the stored row's values are the committed ones")
            XCTAssertEqual(committed["note"] as? String, "stored", "\(kit)")
            try stack.reopen()
            let reader = stack.newContext()
            try reader.performAndWait {
                let samples = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Sample", predicate: nil, sortDescriptors: [.ascending("taken")]))
                XCTAssertEqual(try samples.map { try $0.value(forKey: "value") as? Double }, [2, 1], "\(kit)")
                XCTAssertEqual(try samples.map { try $0.value(forKey: "note") as? String }, [nil, "stored"], "\(kit)")
            }
        }
    }

    /// `Gadget` unique by `serial`, and its sub-entity `Phone`, which carries the constraint too.
    private static func gadgetModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Gadget", uniquenessConstraints: [["serial"]]) {
                .attribute("serial", .string, optional: false)
                .attribute("level", .integer64, optional: false, defaultValue: 0)
            }
            EntityDescription("Phone", parent: "Gadget") {
                .attribute("carrier", .string)
            }
        }
    }

    /// A constraint a parent entity declares holds across its sub-entities: a new object meets
    /// the stored row of another entity of the family, which survives with the new values.
    private func checkInheritedConstraint() {
        kit.check("a constraint inherited by a sub-entity conflicts across the entities") {
            let stack = try kit.makeStack(model: try Self.gadgetModel())
            /// Inserts `(entity, serial)`s with `level` and saves under `policy`.
            func save(_ objects: [(String, String)], level: Int, policy: MergePolicy) throws {
                let context = stack.newContext()
                context.mergePolicy = policy
                try context.performAndWait {
                    for (entity, serial) in objects {
                        let object = try context.insertNewObject(forEntityName: entity)
                        try object.setValue(serial, forKey: "serial")
                        try object.setValue(level, forKey: "level")
                        if entity == "Phone" { try object.setValue("new", forKey: "carrier") }
                    }
                    try context.save()
                }
            }
            try save([("Phone", "s1"), ("Gadget", "s2")], level: 1, policy: .error)
            try save([("Gadget", "s1"), ("Phone", "s2"), ("Phone", "s3")], level: 2, policy: .mergeByPropertyObjectTrump)
            try stack.reopen()
            let reader = stack.newContext()
            try reader.performAndWait {
                let read = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Gadget", predicate: nil, sortDescriptors: [.ascending("serial")]))
                XCTAssertEqual(try read.map { try $0.value(forKey: "serial") as? String }, ["s1", "s2", "s3"], "\(kit): one row per serial")
                XCTAssertEqual(read.map(\.entity.name), ["Phone", "Gadget", "Phone"], "\(kit): the stored objects survive")
                XCTAssertEqual(try read.map { try $0.value(forKey: "level") as? Int64 }, [2, 2, 2], "\(kit): object-trump: the new values")
            }
        }
    }

    /// `Device` (no constraint) and its sub-entities `Tablet`, unique by `serial`, and `Watch`.
    private static func deviceModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Device") {
                .attribute("serial", .string, optional: false)
                .attribute("level", .integer64, optional: false, defaultValue: 0)
            }
            EntityDescription("Tablet", parent: "Device", uniquenessConstraints: [["serial"]]) {
                .attribute("size", .integer64, optional: false, defaultValue: 0)
            }
            EntityDescription("Watch", parent: "Device") {
                .attribute("strap", .string)
            }
        }
    }

    /// A constraint a sub-entity declares, checked with a long list of values (one bound list,
    /// joined to the rows in SQLite) in a table the entity shares with its parent and sibling:
    /// the stored rows of that entity are found, and only they conflict.
    private func checkSubEntityConstraintWithLongList() {
        kit.check("a sub-entity's constraint checked with a long list finds that entity's stored rows") {
            let stack = try kit.makeStack(model: try Self.deviceModel())
            let count = 300
            /// Inserts one `entity` per serial `<prefix>0..<<prefix><count>` (every `step`th) at `level`.
            func save(_ entities: [String], prefix: String, step: Int, level: Int, policy: MergePolicy) throws {
                let context = stack.newContext()
                context.mergePolicy = policy
                try context.performAndWait {
                    for index in stride(from: 0, to: count, by: step) {
                        for entity in entities {
                            let object = try context.insertNewObject(forEntityName: entity)
                            try object.setValue("\(prefix)\(index)", forKey: "serial")
                            try object.setValue(level, forKey: "level")
                        }
                    }
                    try context.save()
                }
            }
            // Stored: devices and watches (serials of their own) and a tablet for every other serial.
            try save(["Device"], prefix: "d", step: 1, level: 1, policy: .error)
            try save(["Watch"], prefix: "w", step: 1, level: 1, policy: .error)
            try save(["Tablet"], prefix: "s", step: 2, level: 1, policy: .error)
            // New: a tablet per serial; half meet a stored tablet.
            try save(["Tablet"], prefix: "s", step: 1, level: 2, policy: .mergeByPropertyObjectTrump)
            try stack.reopen()
            let reader = stack.newContext()
            try reader.performAndWait {
                func levels(_ entity: String) throws -> [Int64] {
                    var request = FetchRequest<ManagedObject>(entityName: entity)
                    request.storeRequest.includesSubentities = false
                    return try reader.fetch(request).map { try $0.value(forKey: "level") as? Int64 ?? -1 }
                }
                XCTAssertEqual(try levels("Tablet").count, count, "\(kit): one tablet per serial")
                XCTAssertEqual(Set(try levels("Tablet")), [2], "\(kit): object-trump: the new values")
                XCTAssertEqual(try levels("Device"), Array(repeating: 1, count: count), "\(kit): devices untouched")
                XCTAssertEqual(try levels("Watch"), Array(repeating: 1, count: count), "\(kit): watches untouched")
            }
            // Under the error policy a save names exactly the stored tablets it meets.
            let context = stack.newContext()
            try context.performAndWait {
                for index in 0..<count {
                    let tablet = try context.insertNewObject(forEntityName: "Tablet")
                    try tablet.setValue("s\(index * 2)", forKey: "serial")
                }
                XCTAssertThrowsError(try context.save(), "\(kit)") { error in
                    let conflicts = (error as? ObjectValidationError)?.constraintConflicts ?? []
                    XCTAssertEqual(conflicts.count, count / 2, "\(kit): one per stored tablet's serial")
                    XCTAssertEqual(Set(conflicts.compactMap(\.databaseObjectID?.entityName)), ["Tablet"], "\(kit)")
                    XCTAssertEqual(Set(conflicts.map(\.conflictingObjectIDs.count)), [1], "\(kit)")
                }
            }
        }
    }

    func run() {
        checkManyStoredRows()
        checkSubEntityConstraintWithLongList()
        checkInheritedConstraint()
        checkResolvedObjectState()
        kit.check("constraint conflicts on save") {
            let stack = try kit.makeStack(model: QuakeModel.make())

            // Object-trump, two duplicates inside one save and nothing stored: one row, the last values.
            let first = try importQuakes(into: stack, policy: .mergeByPropertyObjectTrump, magnitude: 1, place: "first", extra: [("q0", 9)])
            XCTAssertNil(first.error, "\(kit): \(String(describing: first.error))")
            var stored = try storedQuakes(stack)
            XCTAssertEqual(stored.count, Self.recordCount, "\(kit): the duplicate inside the save is merged")
            XCTAssertEqual(stored["q0"]?.magnitude, 9, "\(kit): object-trump: the last duplicate's values")
            XCTAssertEqual(stored["q1"]?.magnitude, 1, "\(kit)")
            let storedIDs = stored.mapValues(\.id)

            // Object-trump again: every stored quake takes the new values; the new objects become them.
            let second = try importQuakes(into: stack, policy: .mergeByPropertyObjectTrump, magnitude: 2, place: "second")
            XCTAssertNil(second.error, "\(kit): \(String(describing: second.error))")
            XCTAssertEqual(second.objects[5], storedIDs["q5"], "\(kit): the new object became the stored one")
            XCTAssertEqual(second.isInserted[5], false, "\(kit)")
            stored = try storedQuakes(stack)
            XCTAssertEqual(stored.count, Self.recordCount, "\(kit): no row added")
            XCTAssertEqual(Set(stored.values.map(\.magnitude)), [2], "\(kit): object-trump: the new values")
            XCTAssertEqual(Set(stored.values.map(\.place)), ["second"], "\(kit)")
            XCTAssertEqual(stored["q5"]?.id, storedIDs["q5"], "\(kit): the stored object keeps its ID")

            // Store-trump: stored values stay; ten new codes are added, one of them twice (the first wins).
            let fresh = (0..<10).map { (code: "n\($0)", magnitude: 5.0) } + [(code: "n0", magnitude: 6.0)]
            let third = try importQuakes(into: stack, policy: .mergeByPropertyStoreTrump, magnitude: 3, place: "third", extra: fresh)
            XCTAssertNil(third.error, "\(kit): \(String(describing: third.error))")
            stored = try storedQuakes(stack)
            XCTAssertEqual(stored.count, Self.recordCount + 10, "\(kit): only the new codes are added")
            XCTAssertEqual(stored["q7"]?.magnitude, 2, "\(kit): store-trump: the stored values stay")
            XCTAssertEqual(stored["q7"]?.place, "second", "\(kit)")
            XCTAssertEqual(stored["n0"]?.magnitude, 5, "\(kit): store-trump: the first duplicate's values")
            XCTAssertEqual(stored["n0"]?.place, "third", "\(kit)")

            // Error: the save is refused, naming every conflict, and nothing changes.
            let fourth = try importQuakes(into: stack, policy: .error, magnitude: 4, place: "fourth", extra: [("z1", 1), ("z1", 2)])
            let error = fourth.error as? ObjectValidationError
            XCTAssertEqual(error?.code, .uniquenessConstraint, "\(kit): \(String(describing: fourth.error))")
            let conflicts = error?.constraintConflicts ?? []
            XCTAssertEqual(conflicts.count, Self.recordCount + 1, "\(kit): one conflict per stored code, and the two new z1")
            if let conflict = conflicts.first(where: { $0.constraintValues["code"] == .string("q3") }) {
                XCTAssertEqual(conflict.entity, "Quake", "\(kit)")
                XCTAssertEqual(conflict.constraint, ["code"], "\(kit)")
                XCTAssertEqual(conflict.databaseObjectID, storedIDs["q3"], "\(kit)")
                XCTAssertEqual(conflict.conflictingObjectIDs, [fourth.objects[3]], "\(kit)")
            } else {
                XCTFail("\(kit): no conflict names q3")
            }
            let inside = conflicts.first { $0.constraintValues["code"] == .string("z1") }
            XCTAssertNil(inside?.databaseObjectID, "\(kit): two new objects, nothing stored")
            XCTAssertEqual(inside?.conflictingObjectIDs.count, 2, "\(kit)")
            stored = try storedQuakes(stack)
            XCTAssertEqual(stored.count, Self.recordCount + 10, "\(kit): the refused save changed nothing")
            XCTAssertEqual(stored["q3"]?.magnitude, 2, "\(kit)")
        }
        kit.check("an updated object moved onto a stored object's constraint values") {
            let stack = try kit.makeStack(model: QuakeModel.make())
            /// Stores q1 (magnitude 1) and q2 (magnitude 2); returns their IDs.
            func storeTwo() throws -> (q1: ManagedObjectID, q2: ManagedObjectID) {
                let context = stack.newContext()
                return try context.performAndWait {
                    for quake in try context.fetch(FetchRequest<ManagedObject>(entityName: "Quake")) { context.delete(quake) }
                    let q1 = try makeQuake(in: context, code: "q1", magnitude: 1, place: "one")
                    let q2 = try makeQuake(in: context, code: "q2", magnitude: 2, place: "two")
                    try context.save()
                    return (q1.objectID, q2.objectID)
                }
            }
            /// Moves q2 onto q1's code with magnitude 7 under `policy`; returns the save's error.
            func moveQ2OntoQ1(_ id: ManagedObjectID, policy: MergePolicy) throws -> (any Error)? {
                let context = stack.newContext()
                context.mergePolicy = policy
                return try context.performAndWait {
                    let q2 = try context.existingObject(with: id)
                    try q2.setValue("q1", forKey: "code")
                    try q2.setValue(7.0, forKey: "magnitude")
                    do { try context.save() } catch { return error }
                    return nil
                }
            }

            var ids = try storeTwo()
            XCTAssertNil(try moveQ2OntoQ1(ids.q2, policy: .mergeByPropertyObjectTrump), "\(kit): object-trump resolves it")
            var stored = try storedQuakes(stack)
            XCTAssertEqual(stored.count, 1, "\(kit): the moved object merged into the stored one")
            XCTAssertEqual(stored["q1"]?.id, ids.q1, "\(kit): the stored object survives")
            XCTAssertEqual(stored["q1"]?.magnitude, 7, "\(kit): object-trump: the moved object's values")

            ids = try storeTwo()
            XCTAssertNil(try moveQ2OntoQ1(ids.q2, policy: .mergeByPropertyStoreTrump), "\(kit): store-trump resolves it")
            stored = try storedQuakes(stack)
            XCTAssertEqual(stored.count, 1, "\(kit)")
            XCTAssertEqual(stored["q1"]?.magnitude, 1, "\(kit): store-trump: the stored values stay")

            ids = try storeTwo()
            let error = try moveQ2OntoQ1(ids.q2, policy: .error) as? ObjectValidationError
            XCTAssertEqual(error?.code, .uniquenessConstraint, "\(kit)")
            XCTAssertEqual(error?.constraintConflicts.first?.databaseObjectID, ids.q1, "\(kit): the stored object is named")
            XCTAssertEqual(error?.constraintConflicts.first?.conflictingObjectIDs, [ids.q2], "\(kit): and the moved one")
            stored = try storedQuakes(stack)
            XCTAssertEqual(stored.count, 2, "\(kit): the refused save changed nothing")
            XCTAssertEqual(stored["q2"]?.magnitude, 2, "\(kit)")
        }
        kit.check("values stored between the conflict check and the write are resolved") {
            let stack = try kit.makeStack(model: QuakeModel.make())
            /// Object-trump that, the first time it is asked, lets another context store "race".
            final class RacingPolicy: MergePolicy, @unchecked Sendable {
                // @unchecked: called on the saving context's queue only.
                var race: (() throws -> Void)?
                override func resolve(mergeConflicts conflicts: [Any], in context: ManagedObjectContext) throws {
                    try super.resolve(mergeConflicts: conflicts, in: context)
                    let race = self.race
                    self.race = nil
                    try race?()
                }
            }
            let policy = RacingPolicy(merge: .mergeByPropertyObjectTrump)
            policy.race = {
                let other = stack.newContext()
                try other.performAndWait {
                    _ = try makeQuake(in: other, code: "race", magnitude: 1, place: "other")
                    try other.save()
                }
            }
            let context = stack.newContext()
            context.mergePolicy = policy
            try context.performAndWait {
                // Two new duplicates, so that the policy is asked before the write.
                _ = try makeQuake(in: context, code: "twin", magnitude: 1, place: "first")
                _ = try makeQuake(in: context, code: "twin", magnitude: 2, place: "second")
                _ = try makeQuake(in: context, code: "race", magnitude: 9, place: "importer")
                try context.save()
            }
            let stored = try storedQuakes(stack)
            XCTAssertEqual(Set(stored.keys), ["twin", "race"], "\(kit): one row per code")
            XCTAssertEqual(stored["race"]?.magnitude, 9, "\(kit): the save resolved the raced row too (object-trump)")
            XCTAssertEqual(stored["twin"]?.magnitude, 2, "\(kit)")
        }
        kit.check("constraint values with a nil part never conflict") {
            let stack = try kit.makeStack(model: try Self.handleModel())
            let context = stack.newContext()
            try context.performAndWait {
                for (team, handle) in [("a", nil), ("a", nil), (nil, "x"), (nil, "x"), ("b", "y")] as [(String?, String?)] {
                    let account = try context.insertNewObject(forEntityName: "Account")
                    try account.setValue(team, forKey: "team")
                    try account.setValue(handle, forKey: "handle")
                }
                try context.save()
            }
            try stack.reopen()
            let reader = stack.newContext()
            try reader.performAndWait {
                XCTAssertEqual(try reader.count(for: FetchRequest<ManagedObject>(entityName: "Account")), 5, "\(kit): every account with a nil part is kept")
                let duplicate = try reader.insertNewObject(forEntityName: "Account")
                try duplicate.setValue("b", forKey: "team")
                try duplicate.setValue("y", forKey: "handle")
                XCTAssertThrowsError(try reader.save(), "\(kit): equal values without a nil part conflict") { error in
                    XCTAssertEqual((error as? ObjectValidationError)?.code, .uniquenessConstraint, "\(kit): \(error)")
                    // The conflict names both keys' values, by key, and the stored account.
                    let conflicts = (error as? ObjectValidationError)?.constraintConflicts ?? []
                    XCTAssertEqual(conflicts.count, 1, "\(kit): \(conflicts)")
                    XCTAssertEqual(conflicts.first?.constraint, ["team", "handle"], "\(kit)")
                    XCTAssertEqual(conflicts.first?.constraintValues, ["team": .string("b"), "handle": .string("y")], "\(kit)")
                    XCTAssertNotNil(conflicts.first?.databaseObjectID, "\(kit)")
                    XCTAssertEqual(conflicts.first?.conflictingObjectIDs, [duplicate.objectID], "\(kit)")
                    let description = conflicts.first?.description ?? ""
                    XCTAssertTrue(description.hasPrefix("Account (team = "), "\(kit): \(description)")
                    XCTAssertTrue(description.contains(", handle = "), "\(kit): \(description)")
                }
            }
        }
        kit.check("constraint conflicts merge relationships") {
            let stack = try kit.makeStack(model: BlogModel.make())
            /// Saves a new post titled `title` tagged with a new tag "swift"; returns the tag and its context.
            func savePostTaggedSwift(_ title: String, policy: MergePolicy) throws -> (Tag, ManagedObjectContext) {
                let context = stack.newContext()
                context.mergePolicy = policy
                return try context.performAndWait {
                    let tag = try Tag(context: context)
                    tag.name = "swift"
                    let post = try Post(context: context)
                    post.title = title
                    post.tags = [tag]
                    try context.save()
                    return (tag, context)
                }
            }
            _ = try savePostTaggedSwift("Stored", policy: .error)
            try stack.reopen()
            let (tag, importer) = try savePostTaggedSwift("Imported", policy: .mergeByPropertyObjectTrump)
            importer.performAndWait {
                XCTAssertEqual(tag.posts.map(\.title).sorted(), ["Imported", "Stored"], "\(kit): the new tag became the stored one, with both posts")
            }
            try stack.reopen()
            let reader = stack.newContext()
            try reader.performAndWait {
                let tags = try reader.fetch(FetchRequest<Tag>())
                XCTAssertEqual(tags.count, 1, "\(kit): one tag named swift")
                XCTAssertEqual(tags.first?.posts.map(\.title).sorted(), ["Imported", "Stored"], "\(kit): the stored post keeps its link")
            }
        }
    }
}
