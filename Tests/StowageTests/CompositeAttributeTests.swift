import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// Composite attributes (Core Data's `NSCompositeAttributeDescription`) on every store type: the
/// value is a dictionary of the elements, each element is read, written, fetched by and sorted by
/// through its key path, and the values survive a save and a reopen.
final class CompositeAttributeTests: XCTestCase {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Quake", uniquenessConstraints: [["code"]]) {
                .attribute("code", .string)
                .composite(
                    "location",
                    elements: .attribute("latitude", .double).attribute("longitude", .double)
                        .composite("source", elements: .attribute("network", .string).attribute("station", .integer32)))
            }
        }
    }

    private func load(_ backend: StoreBackend, in directory: TemporaryDirectory) throws -> PersistentContainer {
        let container = PersistentContainer(name: "Quakes", managedObjectModel: try Self.model())
        container.persistentStoreDescriptions = [backend.description(named: "Quakes", in: directory)]
        try container.loadPersistentStores()
        return container
    }

    private func insertQuakes(_ context: ManagedObjectContext) throws {
        for (code, latitude, longitude, network) in [("a", 35.6, 139.7, "JMA"), ("b", -33.4, -70.6, "CSN"), ("c", 61.2, -149.9, "AK")] {
            let quake = try context.insertNewObject(forEntityName: "Quake")
            try quake.setValue(code, forKey: "code")
            try quake.setValue(["latitude": latitude, "longitude": longitude, "source": ["network": network, "station": 7]], forKey: "location")
        }
        let unplaced = try context.insertNewObject(forEntityName: "Quake")
        try unplaced.setValue("d", forKey: "code")
        try context.save()
    }

    func testTheModelListsEachElementByKeyPath() throws {
        let entity = try Self.model().entity(named: "Quake")
        XCTAssertEqual(entity.properties.map(\.name), ["code", "location.latitude", "location.longitude", "location.source.network", "location.source.station"])
        let composite = try XCTUnwrap(entity.compositeAttributesByName["location"])
        XCTAssertEqual(composite.attributeType, .composite)
        XCTAssertEqual(composite.elements.map(\.name), ["latitude", "longitude", "source"])
        XCTAssertEqual(composite.leafElements.map(\.keyPath), ["latitude", "longitude", "source.network", "source.station"])
        XCTAssertEqual(entity.attributesByName["location.source.station"]?.attributeType, .integer32)
    }

    func testElementsThatCoreDataRefusesAreRefused() {
        for element in [EntityProperties.attribute("id", .objectID), .attribute("scratch", .string, transient: true),
                        .attribute("photo", .binaryData, allowsExternalBinaryDataStorage: true)] {
            XCTAssertThrowsError(try ManagedObjectModel {
                EntityDescription("Quake") { .composite("location", elements: element) }
            }) { error in
                XCTAssertEqual((error as? ModelError)?.code, .invalidAttributeType, "\(element.properties.map(\.name))")
            }
        }
    }

    func testValuesRoundTripAndQueryOnEveryStore() throws {
        for backend in StoreBackend.all {
            let directory = try TemporaryDirectory()
            var container = try load(backend, in: directory)
            var context = container.newBackgroundContext()
            try context.performAndWait { try insertQuakes(context) }
            if backend.isFileBacked {
                for store in container.persistentStoreCoordinator.persistentStores { try container.persistentStoreCoordinator.removePersistentStore(store) }
                container = try load(backend, in: directory)
                context = container.newBackgroundContext()
            }
            try context.performAndWait {
                var request = FetchRequest<ManagedObject>(entityName: "Quake")
                request.predicate = try StorePredicate(format: "location.latitude > %@ AND location.source.network != nil", 0)
                request.sortDescriptors = [StoreSortDescriptor(keyPath: "location.longitude", ascending: true)]
                let north = try context.fetch(request)
                XCTAssertEqual(try north.map { try $0.value(forKey: "code") as? String }, ["c", "a"], "\(backend)")

                let tokyo = try XCTUnwrap(north.last)
                let location = try XCTUnwrap(try tokyo.value(forKey: "location") as? [String: Any], "\(backend)")
                XCTAssertEqual(location["latitude"] as? Double, 35.6, "\(backend)")
                XCTAssertEqual((location["source"] as? [String: Any])?["network"] as? String, "JMA", "\(backend)")
                XCTAssertEqual(try tokyo.value(forKey: "location.source.station") as? Int64, 7, "\(backend)")

                let unplaced = try context.fetch(FetchRequest<ManagedObject>(entityName: "Quake", predicate: try StorePredicate(format: "location.latitude == nil")))
                XCTAssertEqual(try unplaced.map { try $0.value(forKey: "code") as? String }, ["d"], "\(backend)")
                XCTAssertNil(try unplaced.first?.value(forKey: "location"), "\(backend): no element set, no dictionary")

                // Setting an element by key path, then clearing the whole composite.
                try tokyo.setValue(36.0, forKey: "location.latitude")
                try XCTUnwrap(unplaced.first).setValue(nil, forKey: "location")
                try context.save()
                let moved = try context.count(for: FetchRequest<ManagedObject>(entityName: "Quake", predicate: try StorePredicate(format: "location.latitude == 36.0")))
                XCTAssertEqual(moved, 1, "\(backend)")
            }
        }
    }

    func testBadValuesAndWholeCompositeKeysAreRefusedWithoutChanges() throws {
        for backend in StoreBackend.all {
            let directory = try TemporaryDirectory()
            let container = try load(backend, in: directory)
            let context = container.newBackgroundContext()
            try context.performAndWait {
                try insertQuakes(context)
                let quake = try XCTUnwrap(try context.fetch(FetchRequest<ManagedObject>(entityName: "Quake", predicate: try StorePredicate(format: "code == 'a'"))).first)
                XCTAssertThrowsError(try quake.setValue(["latitude": 1.0, "depth": 10.0], forKey: "location"), "\(backend)") { error in
                    XCTAssertEqual((error as? ObjectValidationError)?.code, .wrongType)
                }
                XCTAssertThrowsError(try quake.setValue(["latitude": "north"], forKey: "location"), "\(backend)")
                XCTAssertThrowsError(try quake.setValue(12, forKey: "location"), "\(backend)")
                XCTAssertEqual(try quake.value(forKey: "location.latitude") as? Double, 35.6, "\(backend): unchanged")
                XCTAssertFalse(quake.hasChanges, "\(backend)")

                XCTAssertThrowsError(try context.fetch(FetchRequest<ManagedObject>(entityName: "Quake", predicate: try StorePredicate(format: "location == nil"))), "\(backend)") { error in
                    XCTAssertEqual((error as? FetchError)?.code, .invalidKeyPath, "\(backend)")
                    XCTAssertTrue("\(error)".contains("composite"), "\(backend): \(error)")
                }
            }
        }
    }

    func testDictionaryResultsReadElements() throws {
        for backend in StoreBackend.all {
            let directory = try TemporaryDirectory()
            let container = try load(backend, in: directory)
            let context = container.newBackgroundContext()
            try context.performAndWait {
                try insertQuakes(context)
                var request = FetchRequest<FetchedDictionary>(entityName: "Quake")
                request.propertiesToFetch = ["code", "location.source.network"]
                request.predicate = try StorePredicate(format: "location.longitude < 0")
                request.sortDescriptors = [StoreSortDescriptor(keyPath: "code", ascending: true)]
                let rows = try context.fetch(request)
                XCTAssertEqual(rows.map { $0["location.source.network"] }, [.string("CSN"), .string("AK")], "\(backend)")
            }
        }
    }

    func testAddingAndRenamingAnElementMigratesOnLoad() throws {
        let v1 = try ManagedObjectModel {
            EntityDescription("Quake") { .composite("location", elements: .attribute("latitude", .double)) }
        }
        for backend in StoreBackend.all where backend.isFileBacked {
            let directory = try TemporaryDirectory()
            let description = backend.description(named: "Quakes", in: directory)
            let old = PersistentContainer(name: "Quakes", managedObjectModel: v1)
            old.persistentStoreDescriptions = [description]
            try old.loadPersistentStores()
            let writer = old.newBackgroundContext()
            try writer.performAndWait {
                try writer.insertNewObject(forEntityName: "Quake").setValue(["latitude": 35.6], forKey: "location")
                try writer.save()
            }
            for store in old.persistentStoreCoordinator.persistentStores { try old.persistentStoreCoordinator.removePersistentStore(store) }

            let v2 = try ManagedObjectModel {
                EntityDescription("Quake", uniquenessConstraints: [["location.lat", "location.longitude"]]) {
                    .composite("location", elements: .attribute("lat", .double, renamingIdentifier: "latitude").attribute("longitude", .double))
                }
            }
            v2.migrationSourceModels = [v1]
            let new = PersistentContainer(name: "Quakes", managedObjectModel: v2)
            new.persistentStoreDescriptions = [description]
            try new.loadPersistentStores()
            let reader = new.newBackgroundContext()
            try reader.performAndWait {
                let quake = try XCTUnwrap(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Quake")).first, "\(backend)")
                XCTAssertEqual(try quake.value(forKey: "location") as? [String: Double], ["lat": 35.6], "\(backend)")
                // The new uniqueness constraint over two elements holds.
                try quake.setValue(139.7, forKey: "location.longitude")
                try reader.save()
                try reader.insertNewObject(forEntityName: "Quake").setValue(["lat": 35.6, "longitude": 139.7], forKey: "location")
                XCTAssertThrowsError(try reader.save(), "\(backend)")
            }
        }
    }
}
