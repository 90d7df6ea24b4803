import Foundation
import Stowage

/// The entity every Stowage workload uses.
final class Quake: ManagedObject {
    @Attribute var magnitude: Double
    @Attribute var place: String
    @Attribute var time: Date?
}

/// The Stowage side of the in-memory store workloads.
enum MemoryStoreWorkloads {
    static func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Quake", class: Quake.self) {
                .attribute("magnitude", .double, optional: false, defaultValue: 0.0)
                .attribute("place", .string, optional: false, defaultValue: "")
                .attribute("time", .date)
            }
        }
    }

    /// A loaded container with one empty in-memory store.
    static func makeContainer(model: ManagedObjectModel) throws -> PersistentContainer {
        let container = PersistentContainer(name: "Quakes", managedObjectModel: model)
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: .inMemory)]
        try container.loadPersistentStores()
        return container
    }

    /// A private-queue context saving straight to the container's stores.
    static func makeContext(_ container: PersistentContainer) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = container.persistentStoreCoordinator
        return context
    }

    /// Inserts every quake in `context` and saves once.
    static func insertAndSave(_ data: QuakeData, in context: ManagedObjectContext) throws {
        try context.performAndWait {
            for row in data.quakes {
                let quake = try Quake(context: context)
                quake.magnitude = row.magnitude
                quake.place = row.place
                quake.time = row.time
            }
            try context.save()
        }
    }

    /// Timed: insert + save of every quake into a new, empty store (store and context created
    /// untimed; the context is released after the clock stops, as the baseline keeps its rows).
    static func insertSave(_ data: QuakeData, model: ManagedObjectModel) throws -> Duration {
        let context = makeContext(try makeContainer(model: model))
        return try measure { try insertAndSave(data, in: context) }
    }

    /// Timed: in a new context, fetch `magnitude > 5` sorted by time descending and read every
    /// attribute of every result (as the baseline decodes every column).
    static func fetchPredicateSort(from container: PersistentContainer, expecting expected: Int) throws -> Duration {
        let context = makeContext(container)
        var request = FetchRequest<Quake>()
        request.predicate = .comparison(StoreComparison(
            .keyPath("magnitude"), .greaterThan, .constant(.double(QuakeData.magnitudeThreshold))))
        request.sortDescriptors = [.descending("time")]
        var found = 0
        let elapsed = try measure {
            try context.performAndWait {
                let quakes = try context.fetch(request)
                found = quakes.count
                var checksum = 0.0
                for quake in quakes {
                    checksum += quake.magnitude + Double(quake.place.utf8.count) + (quake.time?.timeIntervalSince1970 ?? 0)
                }
                consume((quakes.count, checksum))
            }
        }
        guard found == expected else { throw BenchmarkError.wrongResultCount(found: found, expected: expected) }
        return elapsed
    }

    /// Timed: `count` containers, each with a loaded in-memory store, all kept alive to the end.
    static func createContainers(_ count: Int, model: ManagedObjectModel) throws -> Duration {
        var containers: [PersistentContainer] = []
        containers.reserveCapacity(count)
        let elapsed = try measure {
            for _ in 0..<count { containers.append(try makeContainer(model: model)) }
        }
        consume(containers)
        return elapsed
    }
}
