import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// A typed fetch returns each object as the request's class, whatever mix of a class and its
/// subclasses the entity and its sub-entities hold, and leaves out an object made with a class
/// that is not the request's, as it always has.
final class TypedFetchResultTests: XCTestCase {
    class Animal: ManagedObject {
        @Attribute var name: String
    }

    final class Dog: Animal {
        @Attribute var barks: Int64
    }

    private func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Animal", class: Animal.self) {
                .attribute("name", .string, optional: false, defaultValue: "")
            }
            EntityDescription("Dog", class: Dog.self, parent: "Animal") {
                .attribute("barks", .integer64, optional: false, defaultValue: 0)
            }
        }
    }

    /// Animals and dogs, alternating, saved.
    private func seeded() throws -> ManagedObjectContext {
        let context = try TestStack.context(try model())
        try context.performAndWait {
            for (n, name) in ["ant", "basset", "cat", "dachshund", "eel", "foxhound"].enumerated() {
                if n.isMultiple(of: 2) {
                    try Animal(context: context).name = name
                } else {
                    let dog = try Dog(context: context)
                    dog.name = name
                    dog.barks = Int64(n)
                }
            }
            try context.save()
        }
        return context
    }

    func testASuperclassFetchReturnsEachObjectAsItsOwnClass() throws {
        let context = try seeded()
        try context.performAndWait {
            var animals = FetchRequest<Animal>()
            animals.sortDescriptors = [.ascending("name")]
            animals.returnsObjectsAsFaults = false
            let fetched = try context.fetch(animals)
            XCTAssertEqual(fetched.map(\.name), ["ant", "basset", "cat", "dachshund", "eel", "foxhound"])
            XCTAssertEqual(fetched.map { $0 is Dog }, [false, true, false, true, false, true])
            XCTAssertEqual(fetched.compactMap { ($0 as? Dog)?.barks }, [1, 3, 5])

            var dogs = FetchRequest<Dog>()
            dogs.sortDescriptors = [.descending("name")]
            XCTAssertEqual(try context.fetch(dogs).map(\.name), ["foxhound", "dachshund", "basset"])
            XCTAssertEqual(try context.fetch(dogs).map(\.barks), [5, 3, 1])

            var untyped = FetchRequest<ManagedObject>(entityName: "Animal")
            untyped.sortDescriptors = [.ascending("name")]
            XCTAssertEqual(try context.fetch(untyped).map(\.entity.name), ["Animal", "Dog", "Animal", "Dog", "Animal", "Dog"])
            XCTAssertEqual(try context.fetch(untyped).map(ObjectIdentifier.init), fetched.map(ObjectIdentifier.init))
        }
    }

    func testASubclassFetchInAChildContextReturnsTheSubclass() throws {
        let parent = try seeded()
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        try child.performAndWait {
            var dogs = FetchRequest<Dog>()
            dogs.sortDescriptors = [.ascending("name")]
            let fetched = try child.fetch(dogs)
            XCTAssertEqual(fetched.map(\.name), ["basset", "dachshund", "foxhound"])
            XCTAssertTrue(fetched.allSatisfy { $0.managedObjectContext === child })
        }
    }

    func testAnObjectMadeWithAnotherClassIsLeftOutOfATypedFetch() throws {
        let context = try seeded()
        try context.performAndWait {
            // A plain ManagedObject of the Animal entity: not an Animal, so a typed fetch leaves it
            // out, before or after other objects, and an untyped fetch has it.
            let animal = try XCTUnwrap(context.managedObjectModel?.entitiesByName["Animal"])
            let plain = ManagedObject(entity: animal, insertInto: context)
            try plain.setValue("aardvark", forKey: "name")
            let late = ManagedObject(entity: animal, insertInto: context)
            try late.setValue("zebra", forKey: "name")
            try context.save()

            var animals = FetchRequest<Animal>()
            animals.sortDescriptors = [.ascending("name")]
            XCTAssertEqual(try context.fetch(animals).map(\.name), ["ant", "basset", "cat", "dachshund", "eel", "foxhound"])
            var untyped = FetchRequest<ManagedObject>(entityName: "Animal")
            untyped.sortDescriptors = [.ascending("name")]
            XCTAssertEqual(try context.fetch(untyped).count, 8)
            XCTAssertTrue(try context.fetch(untyped).first === plain)
        }
    }
}
