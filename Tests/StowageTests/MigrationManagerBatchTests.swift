import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// The migration manager in batches, on every file-backed store type: it never holds more than a
/// batch of objects, finds objects made in earlier batches for the relationship phase, lets a
/// batch be saved before a required relationship is set, and still refuses a destination object
/// left without one.
final class MigrationManagerBatchTests: XCTestCase {
    static let fileBacked = StoreBackend.all.filter(\.isFileBacked)
    static let people = 7

    /// Records how many objects the two contexts hold as each object is made and related.
    final class CountingPolicy: EntityMigrationPolicy {
        nonisolated(unsafe) static var registeredCounts: [Int] = []

        private func count(_ manager: MigrationManager) {
            Self.registeredCounts.append(manager.sourceContext.registeredObjects.count + manager.destinationContext.registeredObjects.count)
        }

        override func createDestinationInstances(forSource source: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
            try super.createDestinationInstances(forSource: source, in: mapping, manager: manager)
            count(manager)
        }

        override func createRelationships(forDestination destination: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
            try super.createRelationships(forDestination: destination, in: mapping, manager: manager)
            count(manager)
        }
    }

    /// v2 of ``MappingModelMigrationTests`` with an animal's keeper required.
    static func v2RequiringKeepers() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Human") {
                .attribute("firstName", .string)
                .attribute("lastName", .string)
                .attribute("initials", .string)
                .attribute("ageInMonths", .integer32)
                .toMany("animals", destination: "Animal", inverse: "keeper", ordered: true)
            }
            EntityDescription("Animal") {
                .attribute("name", .string)
                .toOne("keeper", destination: "Human", inverse: "animals", optional: false)
            }
        }
    }

    /// `people` people with three pets each (the second named Ghost, which the mapping leaves out).
    private func makeStore(_ backend: StoreBackend, in directory: TemporaryDirectory) throws -> URL {
        let description = backend.description(named: "People", in: directory)
        let container = PersistentContainer(name: "People", managedObjectModel: try MappingModelMigrationTests.v1())
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for number in 0..<Self.people {
                let person = try context.insertNewObject(forEntityName: "Person")
                try person.setValue("Person \(number)", forKey: "name")
                try person.setValue(number, forKey: "age")
                for pet in ["Tabby \(number)", "Ghost", "Rex \(number)"] {
                    let animal = try context.insertNewObject(forEntityName: "Pet")
                    try animal.setValue(pet, forKey: "name")
                    try person.add(animal, toRelationship: "pets")
                }
            }
            try context.save()
        }
        for store in container.persistentStoreCoordinator.persistentStores { try container.persistentStoreCoordinator.removePersistentStore(store) }
        return try XCTUnwrap(description.url)
    }

    private func mapping(policy: String) throws -> MappingModel {
        var mapping = try MappingModelMigrationTests.mapping()
        mapping.entityMappings[1].mappingType = .custom
        mapping.entityMappings[1].entityMigrationPolicyClassName = policy
        return mapping
    }

    func testObjectsMadeInEarlierBatchesAreFoundAndNoMoreThanABatchIsHeld() throws {
        EntityMigrationPolicy.register(MappingModelMigrationTests.SplitNamePolicy.self, named: "SplitNamePolicy")
        EntityMigrationPolicy.register(CountingPolicy.self, named: "CountingPolicy")
        for backend in Self.fileBacked {
            let directory = try TemporaryDirectory()
            let sourceURL = try makeStore(backend, in: directory)
            let destinationURL = directory.file("Humans.\(sourceURL.pathExtension)")
            let manager = MigrationManager(sourceModel: try MappingModelMigrationTests.v1(), destinationModel: try Self.v2RequiringKeepers())
            manager.batchSize = 2
            CountingPolicy.registeredCounts = []
            try manager.migrateStore(from: sourceURL, type: backend.type, with: try mapping(policy: "CountingPolicy"), to: destinationURL, type: backend.type)
            XCTAssertEqual(CountingPolicy.registeredCounts.count, 2 * 2 * Self.people, "\(backend): each pet but Ghost made, then related")
            // A batch of two pets: the pets, their owners, the objects made from them and the animals
            // those already hold — never the 28 objects of the source store and their 21 copies.
            let most = CountingPolicy.registeredCounts.max() ?? 0
            XCTAssertLessThanOrEqual(most, 20, "\(backend): each batch is let go of before the next (\(CountingPolicy.registeredCounts))")

            let container = PersistentContainer(name: "Humans", managedObjectModel: try Self.v2RequiringKeepers())
            container.persistentStoreDescriptions = [PersistentStoreDescription(type: backend.type, url: destinationURL)]
            try container.loadPersistentStores()
            let context = container.newBackgroundContext()
            try context.performAndWait {
                var request = FetchRequest<ManagedObject>(entityName: "Human")
                request.sortDescriptors = [.ascending("ageInMonths")]
                let humans = try context.fetch(request)
                XCTAssertEqual(humans.count, Self.people, "\(backend)")
                for (number, human) in humans.enumerated() {
                    XCTAssertEqual(try human.value(forKey: "lastName") as? String, "\(number)", "\(backend)")
                    let animals = try XCTUnwrap(try human.value(forKey: "animals") as? [ManagedObject], "\(backend)")
                    XCTAssertEqual(try animals.map { try $0.value(forKey: "name") as? String }, ["Tabby \(number)", "Rex \(number)"], "\(backend): in order, across batches")
                }
                XCTAssertEqual(try context.count(for: FetchRequest<ManagedObject>(entityName: "Animal")), 2 * Self.people, "\(backend)")
            }
        }
    }

    func testADestinationObjectLeftWithoutARequiredRelationshipFailsTheMigration() throws {
        EntityMigrationPolicy.register(MappingModelMigrationTests.SplitNamePolicy.self, named: "SplitNamePolicy")
        for backend in Self.fileBacked {
            let directory = try TemporaryDirectory()
            let sourceURL = try makeStore(backend, in: directory)
            let destinationURL = directory.file("Humans.\(sourceURL.pathExtension)")
            var mapping = try MappingModelMigrationTests.mapping()
            // Animals keep no keeper: neither side's relationship is mapped.
            mapping.entityMappings[0].relationshipMappings = []
            mapping.entityMappings[1].relationshipMappings = []
            let manager = MigrationManager(sourceModel: try MappingModelMigrationTests.v1(), destinationModel: try Self.v2RequiringKeepers())
            manager.batchSize = 3
            XCTAssertThrowsError(try manager.migrateStore(from: sourceURL, type: backend.type, with: mapping, to: destinationURL, type: backend.type), "\(backend)") { error in
                XCTAssertEqual((error as? MigrationError)?.code, .migrationFailed, "\(backend): \(error)")
                XCTAssertTrue("\(error)".contains("keeper"), "\(backend): the relationship is named: \(error)")
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: destinationURL.path), "\(backend): nothing is left at the destination")
        }
    }
}
