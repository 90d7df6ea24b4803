import Foundation
import Stowage
import XCTest

// docs/migration.md, "A migration policy in code": the policy the page's mapping model names.
final class SplitNamePolicy: EntityMigrationPolicy {
    override func begin(_ mapping: EntityMapping, with manager: MigrationManager) throws {
        print("begin", mapping.name)                                    // begin PersonToHuman
    }
    // One Human per Person: the mapping's attributes (super), then the name in two parts.
    override func createDestinationInstances(forSource source: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
        try super.createDestinationInstances(forSource: source, in: mapping, manager: manager)
        let parts = (try source.value(forKey: "name") as? String ?? "").split(separator: " ", maxSplits: 1).map(String.init)
        for human in manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [source]) {
            try human.setValue(parts.first, forKey: "firstName")
            try human.setValue(parts.count > 1 ? parts[1] : nil, forKey: "lastName")
        }
    }
    override func endInstanceCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}
    // The relationship mappings (animals), as the default does; then anything of your own.
    override func createRelationships(forDestination destination: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
        try super.createRelationships(forDestination: destination, in: mapping, manager: manager)
    }
    override func endRelationshipCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}
    override func performCustomValidation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {
        guard manager.destinationEntity(for: mapping)?.attributesByName["firstName"] != nil else {
            throw MigrationError(.invalidMapping, entity: mapping.destinationEntityName, "\(mapping.name): the destination has no firstName")
        }
    }
    override func end(_ mapping: EntityMapping, manager: MigrationManager) throws {
        print("end", mapping.name)                                      // end PersonToHuman
    }
    // FUNCTION($entityPolicy, 'initials:', $source.name) in a value expression.
    override func value(forFunction selector: String, arguments: [Any?], manager: MigrationManager) throws -> Any? {
        guard selector == "initials:" else { return try super.value(forFunction: selector, arguments: arguments, manager: manager) }
        return String((arguments.first as? String ?? "").split(separator: " ").compactMap(\.first))
    }
}

/// docs/migration.md: metadata, lightweight migration of a model package's store, the inferred
/// mapping, a mapping model with a policy (by the manager, and on load from a code-built
/// model's `migrationMappingModels`), and staged migration with handlers.
final class DocsMigrationExamples: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try ExampleStack.makeDirectory()
    }

    override func tearDown() {
        ExampleStack.removeDirectory(directory)
        super.tearDown()
    }

    // MARK: A model package's versions

    /// A store at `url` saved with `model`, holding one post per title.
    private func makeBlogStore(at url: URL, model: ManagedObjectModel, titles: [String]) throws {
        let container = try ExampleStack.container(PersistentStoreDescription(url: url), model: model)
        for title in titles { try container.viewContext.insertNewObject(forEntityName: "Post").setValue(title, forKey: "title") }
        try container.viewContext.save()
        ExampleStack.close(container)
    }

    func testMetadataAndLightweightMigrationOfAPackagesStore() throws {
        let packageURL = try ExampleModelPackage.write(in: directory)
        let bundle = try ManagedObjectModelBundle(contentsOf: packageURL)
        let model = bundle.currentModel
        let storeURL = directory.appendingPathComponent("Blog.sqlite")
        try makeBlogStore(at: storeURL, model: try XCTUnwrap(bundle.version(named: "Blog 2")).model, titles: ["Misty Morning", "Harbour Lights"])
        _ = printed.take()

        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(at: storeURL)   // type detected
        let asSQLite = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: .sqlite, at: storeURL)
        print(metadata.storeType, asSQLite.storeType)          // sqlite sqlite
        print(metadata.modelVersionHashes.keys.sorted())       // ["Comment", "Post"]: entity name → version hash of the model that last saved it
        print(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))   // false: saved with another version
        print(bundle.version(compatibleWithStoreMetadata: metadata)?.name ?? "none")         // Blog 2: the version that wrote it

        XCTAssertEqual(printed.take(), ["sqlite sqlite", #"["Comment", "Post"]"#, "false", "Blog 2"])

        // "Lightweight migration on load", with the package found in a folder of our choosing
        // (an app's resources are searched by default: openFromResources() below).
        let container = try PersistentContainer(name: "Blog", modelSearchDirectories: [directory])
        container.persistentStoreDescriptions = [PersistentStoreDescription(url: storeURL)]
        try container.loadPersistentStores()
        print(try container.viewContext.count(for: FetchRequest<ManagedObject>(entityName: "Post")))   // its posts, kept
        XCTAssertEqual(printed.take(), ["2"])
        XCTAssertTrue(container.managedObjectModel.isConfiguration(
            withName: nil, compatibleWithStoreMetadata: try PersistentStoreCoordinator.metadataForPersistentStore(at: storeURL)), "migrated to Blog 3")
        ExampleStack.close(container)

        let v1 = try XCTUnwrap(bundle.version(named: "Blog")).model
        let v2 = try XCTUnwrap(bundle.version(named: "Blog 2")).model
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
        print(mapping)   // one block per entity mapping: copy/transform/add/remove, and each property's source
        XCTAssertEqual(mapping.entityMapping(forDestinationEntity: "Post")?.mappingType, .transform)
        XCTAssertEqual(mapping.entityMapping(forDestinationEntity: "Comment")?.mappingType, .copy)
    }

    /// The page's second example loads the app's own model from its resources and its store
    /// from the default place, so it is compiled here and run above with a folder of our choosing.
    private func openFromResources() throws -> PersistentContainer {
        let container = try PersistentContainer(name: "Blog")   // Blog.xcdatamodeld: every version is a migration source
        try container.loadPersistentStores()                     // a store saved with "Blog 2" is migrated to the current version
        print(try container.viewContext.count(for: FetchRequest<ManagedObject>(entityName: "Post")))   // its posts, kept
        return container
    }

    // MARK: Mapping models and the migration manager

    /// People with pets, then humans with animals.
    private func peopleModels() throws -> (ManagedObjectModel, ManagedObjectModel) {
        let v1 = try ManagedObjectModel {
            EntityDescription("Person") {
                .attribute("name", .string)
                .attribute("age", .integer16)
                .toMany("pets", destination: "Pet", inverse: "owner")
            }
            EntityDescription("Pet") {
                .attribute("name", .string)
                .toOne("owner", destination: "Person", inverse: "pets")
            }
        }
        let v2 = try ManagedObjectModel {
            EntityDescription("Human") {
                .attribute("firstName", .string)
                .attribute("lastName", .string)
                .attribute("ageInMonths", .integer32)
                .attribute("initials", .string)
                .toMany("animals", destination: "Animal", inverse: "keeper")
            }
            EntityDescription("Animal") {
                .attribute("name", .string)
                .toOne("keeper", destination: "Human", inverse: "animals")
            }
        }
        return (v1, v2)
    }

    /// Ada Lovelace (36, pets Rex and Ghost) and Grace Hopper (40, pet Tom), saved at `url` with `v1`.
    private func makePeopleStore(at url: URL, model v1: ManagedObjectModel) throws {
        let container = try ExampleStack.container(PersistentStoreDescription(url: url), model: v1)
        let context = container.viewContext
        for (name, age, pets) in [("Ada Lovelace", 36, ["Rex", "Ghost"]), ("Grace Hopper", 40, ["Tom"])] {
            let person = try context.insertNewObject(forEntityName: "Person")
            try person.setValue(name, forKey: "name")
            try person.setValue(Int16(age), forKey: "age")
            for petName in pets {
                let pet = try context.insertNewObject(forEntityName: "Pet")
                try pet.setValue(petName, forKey: "name")
                try pet.setValue(person, forKey: "owner")
            }
        }
        try context.save()
        ExampleStack.close(container)
    }

    /// Each human of the store at `url` (opened with `v2`): first and last name, age in months,
    /// initials, and the names of their animals; then every animal's name.
    private func humans(at url: URL, model v2: ManagedObjectModel) throws -> ([String], [String]) {
        let container = try ExampleStack.container(PersistentStoreDescription(url: url), model: v2)
        defer { ExampleStack.close(container) }
        let context = container.viewContext
        var byName = FetchRequest<ManagedObject>(entityName: "Human")
        byName.sortDescriptors = [.ascending("firstName")]
        let humans = try context.fetch(byName).map { human in
            let animals = try (human.value(forKey: "animals") as? Set<ManagedObject> ?? []).map { try $0.value(forKey: "name") as? String ?? "" }
            return [try human.value(forKey: "firstName") as? String ?? "", try human.value(forKey: "lastName") as? String ?? "",
                    "\(try human.value(forKey: "ageInMonths") as? Int64 ?? 0)", try human.value(forKey: "initials") as? String ?? "",
                    animals.sorted().joined(separator: "+")].joined(separator: " ")
        }
        let animals = try context.fetch(FetchRequest<ManagedObject>(entityName: "Animal")).map { try $0.value(forKey: "name") as? String ?? "" }
        return (humans, animals.sorted())
    }

    func testAMappingModelWithAPolicy() throws {
        let (v1, v2) = try peopleModels()
        let oldURL = directory.appendingPathComponent("People.sqlite")
        let newURL = directory.appendingPathComponent("Humans.sqlite")
        let storeURL = directory.appendingPathComponent("InPlace.sqlite")
        try makePeopleStore(at: oldURL, model: v1)
        try makePeopleStore(at: storeURL, model: v1)
        _ = printed.take()

        let mapping = MappingModel(entityMappings: [
            EntityMapping(
                name: "PersonToHuman", mappingType: .custom, sourceEntityName: "Person", destinationEntityName: "Human",
                attributeMappings: [
                    PropertyMapping(name: "ageInMonths", valueExpression: try StoreExpression(format: "$source.age * 12")),
                    PropertyMapping(name: "initials", valueExpression: try StoreExpression(format: "FUNCTION($entityPolicy, 'initials:', $source.name)")),
                ],
                relationshipMappings: [
                    PropertyMapping(name: "animals", valueExpression: try StoreExpression(format:
                        "FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', 'PetToAnimal', $source.pets)")),
                ],
                entityMigrationPolicyClassName: "MyApp.SplitNamePolicy"),
            EntityMapping(
                name: "PetToAnimal", mappingType: .transform, sourceEntityName: "Pet", destinationEntityName: "Animal",
                attributeMappings: [.from("name", to: "name")], relationshipMappings: [.from("owner", to: "keeper")],
                sourcePredicate: try StorePredicate(format: "name != 'Ghost'")),
        ])
        EntityMigrationPolicy.register(SplitNamePolicy.self, named: "SplitNamePolicy")
        let manager = MigrationManager(sourceModel: v1, destinationModel: v2)
        manager.progressHandler = { print("\(Int($0 * 100))%") }
        try manager.migrateStore(from: oldURL, type: .sqlite, with: mapping, to: newURL, type: .sqlite)
        try manager.migrateStore(at: storeURL, type: .sqlite, with: mapping)   // or in place

        let lines = printed.take()
        XCTAssertEqual(lines.filter { !$0.hasSuffix("%") }, ["begin PersonToHuman", "end PersonToHuman", "begin PersonToHuman", "end PersonToHuman"])
        XCTAssertTrue(lines.contains("100%"), "progress reaches 100%: \(lines)")
        let expected = (["Ada Lovelace 432 AL Rex", "Grace Hopper 480 GH Tom"], ["Rex", "Tom"])
        for url in [newURL, storeURL] {
            let (humans, animals) = try humans(at: url, model: v2)
            XCTAssertEqual(humans, expected.0, url.lastPathComponent)
            XCTAssertEqual(animals, expected.1, "Ghost is left out by the source predicate")
        }
    }

    func testEntityMappingsDefaults() throws {
        let mapping = EntityMapping(name: "PetToAnimal", mappingType: .copy, sourceEntityName: "Pet", destinationEntityName: "Animal")
        print(mapping.attributeMappings.isEmpty, mapping.sourcePredicate == nil, mapping.entityMigrationPolicyClassName == nil)   // true true true
        XCTAssertEqual(printed.take().last, "true true true")
        XCTAssertNil(mapping.sourceEntityVersionHash)
        XCTAssertEqual(mapping.userInfo, [:])
    }

    func testAMappingModelOnLoadForAModelBuiltInCode() throws {
        let (v1, v2) = try peopleModels()
        let peopleURL = directory.appendingPathComponent("People.sqlite")
        try makePeopleStore(at: peopleURL, model: v1)
        let mapping = MappingModel(entityMappings: [
            EntityMapping(name: "PersonToHuman", mappingType: .custom, sourceEntityName: "Person", destinationEntityName: "Human",
                          attributeMappings: [PropertyMapping(name: "initials", valueExpression: try StoreExpression(format: "FUNCTION($entityPolicy, 'initials:', $source.name)"))],
                          entityMigrationPolicyClassName: "SplitNamePolicy"),
            EntityMapping(name: "PetToAnimal", mappingType: .transform, sourceEntityName: "Pet", destinationEntityName: "Animal",
                          attributeMappings: [.from("name", to: "name")], relationshipMappings: [.from("owner", to: "keeper")]),
        ])
        EntityMigrationPolicy.register(SplitNamePolicy.self, named: "SplitNamePolicy")
        _ = printed.take()

        v2.migrationSourceModels = [v1]
        v2.migrationMappingModels = [mapping]       // used on load instead of inference when it maps v1 to v2
        let people = PersistentContainer(name: "People", managedObjectModel: v2)
        people.persistentStoreDescriptions = [PersistentStoreDescription(url: peopleURL)]
        try people.loadPersistentStores()          // the v1 store is migrated with `mapping` and SplitNamePolicy

        XCTAssertEqual(printed.take(), ["begin PersonToHuman", "end PersonToHuman"])
        ExampleStack.close(people)
        let (humans, animals) = try humans(at: peopleURL, model: v2)
        XCTAssertEqual(humans, ["Ada Lovelace 0 AL Ghost+Rex", "Grace Hopper 0 GH Tom"])
        XCTAssertEqual(animals, ["Ghost", "Rex", "Tom"])
    }

    // MARK: Likely renames

    func testALikelyRenameRefused() throws {
        let v1 = try ManagedObjectModel { EntityDescription("Note") { .attribute("text", .string) } }
        let v2 = try ManagedObjectModel { EntityDescription("Memo") { .attribute("text", .string) } }
        v2.migrationSourceModels = [v1]
        let storeURL = directory.appendingPathComponent("Notes.sqlite")
        let old = try ExampleStack.container(PersistentStoreDescription(url: storeURL), model: v1)
        try old.viewContext.insertNewObject(forEntityName: "Note").setValue("keep me", forKey: "text")
        try old.viewContext.save()
        ExampleStack.close(old)
        let container = PersistentContainer(name: "Notes", managedObjectModel: v2)
        _ = printed.take()

        var description = PersistentStoreDescription(url: storeURL)
        description.shouldRefuseLikelyEntityRenames = true
        container.persistentStoreDescriptions = [description]
        do { try container.loadPersistentStores() }
        catch let error as MigrationError where error.code == .likelyEntityRename {
            print(error.sourceEntity ?? "", "→", error.entity ?? "")   // Note → Memo: set Memo's renamingIdentifier
        }

        XCTAssertEqual(printed.take(), ["Note → Memo"])
        let reopened = try ExampleStack.container(PersistentStoreDescription(url: storeURL), model: v1)
        XCTAssertEqual(try reopened.viewContext.count(for: FetchRequest<ManagedObject>(entityName: "Note")), 1, "the store was not touched")
        ExampleStack.close(reopened)
    }

    // MARK: Staged migration

    /// Four versions of Person: name; + email; + firstName, lastName; without name.
    private func stagedModels() throws -> [ManagedObjectModel] {
        func person(_ keys: [String]) throws -> ManagedObjectModel {
            try ManagedObjectModel {
                EntityDescription("Person") {
                    for key in keys { .attribute(key, .string) }
                }
            }
        }
        return [try person(["name"]), try person(["name", "email"]), try person(["name", "email", "firstName", "lastName"]),
                try person(["email", "firstName", "lastName"])]
    }

    private func makeStagedStore(at url: URL, model: ManagedObjectModel) throws {
        let container = try ExampleStack.container(PersistentStoreDescription(url: url), model: model)
        for name in ["Ada Lovelace", "Grace Hopper"] {
            try container.viewContext.insertNewObject(forEntityName: "Person").setValue(name, forKey: "name")
        }
        try container.viewContext.save()
        ExampleStack.close(container)
    }

    func testStagedMigrationWithAHandler() throws {
        let versions = try stagedModels()
        let (v1, v2, v3, v4) = (versions[0], versions[1], versions[2], versions[3])
        let storeURL = directory.appendingPathComponent("Staged.sqlite")
        try makeStagedStore(at: storeURL, model: v1)
        let container = PersistentContainer(name: "People", managedObjectModel: v4)

        let split = CustomMigrationStage(migratingFrom: v2, to: v3)    // v3 adds firstName and lastName
        split.didMigrateHandler = { manager, _ in
            let context = try manager.container.newBackgroundContext()
            try context.performAndWait {
                for person in try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")) {
                    let parts = (try person.value(forKey: "name") as? String ?? "").split(separator: " ", maxSplits: 1)
                    try person.setValue(parts.first.map(String.init), forKey: "firstName")
                    try person.setValue(parts.dropFirst().first.map(String.init), forKey: "lastName")
                }
                try context.save()
            }
        }
        var description = PersistentStoreDescription(url: storeURL)
        description.stagedMigrationManager = StagedMigrationManager([
            LightweightMigrationStage([v1, v2]), split, LightweightMigrationStage([v3, v4]),
        ])
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()    // a V1 store walks V1 → V2 → V3 (with the handler) → V4

        var byLastName = FetchRequest<ManagedObject>(entityName: "Person")
        byLastName.sortDescriptors = [.ascending("lastName")]
        let names = try container.viewContext.fetch(byLastName).map { [try $0.value(forKey: "firstName") as? String, try $0.value(forKey: "lastName") as? String] }
        XCTAssertEqual(names, [["Grace", "Hopper"], ["Ada", "Lovelace"]])
        ExampleStack.close(container)
    }

    func testAHandlersArguments() throws {
        let versions = try stagedModels()
        let (v3, v4) = (versions[2], versions[3])
        let storeURL = directory.appendingPathComponent("Audited.sqlite")
        try makeStagedStore(at: storeURL, model: v3)
        _ = printed.take()

        let audit = CustomMigrationStage(migratingFrom: v3, to: v4, label: "drop name")
        audit.willMigrateHandler = { manager, stage in     // the manager, and this stage
            let context = try manager.container.newBackgroundContext()
            let people = try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Person")) }
            print(stage.label, people, stage.destinationModel.entitiesByName["Person"]?.attributesByName["name"] == nil)   // drop name 2 true
        }
        var audited = PersistentStoreDescription(url: storeURL)
        audited.stagedMigrationManager = StagedMigrationManager([audit])
        let people = PersistentContainer(name: "People", managedObjectModel: v4)
        people.persistentStoreDescriptions = [audited]
        try people.loadPersistentStores()

        XCTAssertEqual(printed.take(), ["drop name 2 true"])
        XCTAssertEqual(try people.viewContext.count(for: FetchRequest<ManagedObject>(entityName: "Person")), 2)
        ExampleStack.close(people)
    }
}
