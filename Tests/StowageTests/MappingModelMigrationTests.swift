import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// Migration with a mapping model through ``MigrationManager``, on every file-backed store type:
/// a transform expression, a custom ``EntityMigrationPolicy``, `$manager` and `$entityPolicy`
/// functions, progress, cancellation, and a failure that leaves nothing behind.
final class MappingModelMigrationTests: XCTestCase {
    static let fileBacked = StoreBackend.all.filter(\.isFileBacked)

    static func v1() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Person") {
                .attribute("name", .string)
                .attribute("age", .integer16)
                .toMany("pets", destination: "Pet", inverse: "owner", ordered: true)
            }
            EntityDescription("Pet") {
                .attribute("name", .string)
                .toOne("owner", destination: "Person", inverse: "pets")
            }
        }
    }

    static func v2() throws -> ManagedObjectModel {
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
                .toOne("keeper", destination: "Human", inverse: "animals")
            }
        }
    }

    /// Splits `name` in two and answers `initials:` for the value expression.
    final class SplitNamePolicy: EntityMigrationPolicy {
        override func createDestinationInstances(forSource source: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
            try super.createDestinationInstances(forSource: source, in: mapping, manager: manager)
            let human = try XCTUnwrap(manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [source]).first)
            let parts = (try source.value(forKey: "name") as? String ?? "").split(separator: " ", maxSplits: 1).map(String.init)
            try human.setValue(parts.first, forKey: "firstName")
            try human.setValue(parts.count > 1 ? parts[1] : nil, forKey: "lastName")
        }

        override func value(forFunction selector: String, arguments: [Any?], manager: MigrationManager) throws -> Any? {
            guard selector == "initials:", let name = arguments.first as? String else {
                return try super.value(forFunction: selector, arguments: arguments, manager: manager)
            }
            return String(name.split(separator: " ").compactMap(\.first))
        }
    }

    static func mapping() throws -> MappingModel {
        MappingModel(entityMappings: [
            EntityMapping(
                name: "PersonToHuman", mappingType: .custom, sourceEntityName: "Person", destinationEntityName: "Human",
                attributeMappings: [
                    PropertyMapping(name: "ageInMonths", valueExpression: try StoreExpression(format: "$source.age * 12")),
                    PropertyMapping(name: "initials", valueExpression: try StoreExpression(format: "FUNCTION($entityPolicy, 'initials:', $source.name)")),
                ],
                relationshipMappings: [
                    PropertyMapping(name: "animals", valueExpression: try StoreExpression(format: "FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', 'PetToAnimal', $source.pets)")),
                ],
                entityMigrationPolicyClassName: "MyApp.SplitNamePolicy"),
            EntityMapping(
                name: "PetToAnimal", mappingType: .transform, sourceEntityName: "Pet", destinationEntityName: "Animal",
                attributeMappings: [.from("name", to: "name")], relationshipMappings: [.from("owner", to: "keeper")],
                sourcePredicate: try StorePredicate(format: "name != 'Ghost'")),
        ])
    }

    private func makeV1Store(_ backend: StoreBackend, in directory: TemporaryDirectory) throws -> PersistentStoreDescription {
        let description = backend.description(named: "People", in: directory)
        let container = PersistentContainer(name: "People", managedObjectModel: try Self.v1())
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for (name, age, pets) in [("Ada Lovelace", 36, ["Tabby", "Ghost", "Rex"]), ("Alan Turing", 41, [])] {
                let person = try context.insertNewObject(forEntityName: "Person")
                try person.setValue(name, forKey: "name")
                try person.setValue(age, forKey: "age")
                for petName in pets {
                    let pet = try context.insertNewObject(forEntityName: "Pet")
                    try pet.setValue(petName, forKey: "name")
                    try person.add(pet, toRelationship: "pets")
                }
            }
            try context.save()
        }
        for store in container.persistentStoreCoordinator.persistentStores { try container.persistentStoreCoordinator.removePersistentStore(store) }
        return description
    }

    func testAMappingModelWithATransformExpressionAndACustomPolicyMigratesEveryStoreType() throws {
        EntityMigrationPolicy.register(SplitNamePolicy.self, named: "SplitNamePolicy")
        for backend in Self.fileBacked {
            let directory = try TemporaryDirectory()
            let source = try makeV1Store(backend, in: directory)
            let sourceURL = try XCTUnwrap(source.url)
            let before = try Data(contentsOf: sourceURL)
            let destinationURL = directory.file("Humans.\(sourceURL.pathExtension)")
            let manager = MigrationManager(sourceModel: try Self.v1(), destinationModel: try Self.v2())
            var reports: [Double] = []
            manager.progressHandler = { reports.append($0) }
            try manager.migrateStore(from: sourceURL, type: backend.type, with: try Self.mapping(), to: destinationURL, type: backend.type)
            XCTAssertEqual(reports.last, 1, "\(backend)")
            XCTAssertEqual(manager.migrationProgress, 1, "\(backend): the finished migration reads as done")
            XCTAssertEqual(reports, reports.sorted(), "\(backend): progress only grows")
            XCTAssertEqual(try Data(contentsOf: sourceURL), before, "\(backend): the source store is read, never written")

            let container = PersistentContainer(name: "Humans", managedObjectModel: try Self.v2())
            container.persistentStoreDescriptions = [PersistentStoreDescription(type: backend.type, url: destinationURL)]
            try container.loadPersistentStores()
            let context = container.newBackgroundContext()
            try context.performAndWait {
                var request = FetchRequest<ManagedObject>(entityName: "Human")
                request.sortDescriptors = [.ascending("firstName")]
                let humans = try context.fetch(request)
                XCTAssertEqual(try humans.map { try $0.value(forKey: "firstName") as? String }, ["Ada", "Alan"], "\(backend)")
                XCTAssertEqual(try humans.map { try $0.value(forKey: "lastName") as? String }, ["Lovelace", "Turing"], "\(backend)")
                XCTAssertEqual(try humans.map { try $0.value(forKey: "initials") as? String }, ["AL", "AT"], "\(backend)")
                XCTAssertEqual(try humans.map { try $0.value(forKey: "ageInMonths") as? Int64 }, [432, 492], "\(backend)")
                let animals = try XCTUnwrap(try humans[0].value(forKey: "animals") as? [ManagedObject], "\(backend)")
                XCTAssertEqual(try animals.map { try $0.value(forKey: "name") as? String }, ["Tabby", "Rex"], "\(backend): in order, Ghost left out by the source predicate")
                XCTAssertTrue(try animals.allSatisfy { try $0.value(forKey: "keeper") as? ManagedObject === humans[0] }, "\(backend): the inverse is set")
                XCTAssertEqual(try context.count(for: FetchRequest<ManagedObject>(entityName: "Animal")), 2, "\(backend)")
            }
        }
    }

    func testACancelledOrFailedMigrationLeavesNothingAtTheDestination() throws {
        EntityMigrationPolicy.register(SplitNamePolicy.self, named: "SplitNamePolicy")
        struct Stop: Error {}
        for backend in Self.fileBacked {
            let directory = try TemporaryDirectory()
            let sourceURL = try XCTUnwrap(try makeV1Store(backend, in: directory).url)
            let destinationURL = directory.file("Humans.\(sourceURL.pathExtension)")
            let manager = MigrationManager(sourceModel: try Self.v1(), destinationModel: try Self.v2())
            manager.progressHandler = { [unowned manager] _ in manager.cancelMigration(with: Stop()) }
            XCTAssertThrowsError(try manager.migrateStore(from: sourceURL, type: backend.type, with: try Self.mapping(), to: destinationURL, type: backend.type), "\(backend)") { error in
                XCTAssertTrue(error is Stop, "\(backend): the cancelling error is thrown (\(error))")
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: destinationURL.path), "\(backend)")

            // A mapping whose policy is not registered fails before anything is made.
            var mapping = try Self.mapping()
            mapping.entityMappings[0].entityMigrationPolicyClassName = "MyApp.Missing"
            let again = MigrationManager(sourceModel: try Self.v1(), destinationModel: try Self.v2())
            XCTAssertThrowsError(try again.migrateStore(from: sourceURL, type: backend.type, with: mapping, to: destinationURL, type: backend.type), "\(backend)") { error in
                XCTAssertEqual((error as? MigrationError)?.code, .invalidMapping, "\(backend): \(error)")
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: destinationURL.path), "\(backend)")

            // A value the destination attribute cannot take fails the migration, naming the property.
            mapping = try Self.mapping()
            mapping.entityMappings[0].attributeMappings[0].valueExpression = try StoreExpression(format: "$source.name")
            XCTAssertThrowsError(try again.migrateStore(from: sourceURL, type: backend.type, with: mapping, to: destinationURL, type: backend.type), "\(backend)") { error in
                XCTAssertEqual((error as? MigrationError)?.key, "ageInMonths", "\(backend): \(error)")
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: destinationURL.path), "\(backend)")
        }
    }

    func testAMappingModelOfTheModelIsUsedOnLoadInsteadOfInferring() throws {
        EntityMigrationPolicy.register(SplitNamePolicy.self, named: "SplitNamePolicy")
        for backend in Self.fileBacked {
            let directory = try TemporaryDirectory()
            let description = try makeV1Store(backend, in: directory)
            let v2 = try Self.v2()
            v2.migrationSourceModels = [try Self.v1()]
            v2.migrationMappingModels = [try Self.mapping()]
            let container = PersistentContainer(name: "People", managedObjectModel: v2)
            container.persistentStoreDescriptions = [description]
            try container.loadPersistentStores()
            let context = container.newBackgroundContext()
            try context.performAndWait {
                let humans = try context.fetch(FetchRequest<ManagedObject>(entityName: "Human", predicate: try StorePredicate(format: "initials == 'AL'")))
                XCTAssertEqual(try humans.first?.value(forKey: "lastName") as? String, "Lovelace", "\(backend)")
                XCTAssertEqual((try humans.first?.value(forKey: "animals") as? [ManagedObject])?.count, 2, "\(backend)")
            }
            let store = try XCTUnwrap(container.persistentStoreCoordinator.persistentStores.first)
            XCTAssertEqual(store.url?.standardizedFileURL, description.url?.standardizedFileURL, "\(backend)")
            XCTAssertTrue(v2.isConfiguration(withName: nil, compatibleWithStoreMetadata: store.metadata), "\(backend)")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains("migrating") }
            XCTAssertEqual(leftovers, [], "\(backend)")
        }
    }
}
