import BinaryBackend
import Foundation
import Stowage

/// The binary store's file format next to Foundation's binary property lists, on the same
/// 100,000 quakes (key, magnitude, place, time).
///
/// Ours is the format on its own — `BinaryStoreFormat.write` of the atomic-store file the
/// engine hands it, and `BinaryStoreFormat.read` of the bytes back into that file — with no
/// context, no disk I/O and no engine work on either side, so the backend is what is timed.
/// `binary.open-store-100k` adds the rest of a store load: reading the file from disk and
/// building the engine's snapshot graph.
enum BinaryStoreWorkloads {
    /// The same data in the three shapes the sides use, built once (untimed).
    final class Data100k {
        let model: ManagedObjectModel
        let file: AtomicStoreFile
        /// As Foundation property-list objects: one dictionary per quake.
        let dictionaries: [[String: Any]]
        let records: [QuakeRecord]
        let magnitudeSum: Double
        /// Each side's encoded file, for the load workloads and for MB/s.
        let ours: Foundation.Data
        let foundationPlist: Foundation.Data
        let foundationEncoder: Foundation.Data
        /// A store file on disk holding `ours`.
        let storeURL: URL

        init(_ data: QuakeData, model: ManagedObjectModel) throws {
            self.model = model
            var file = AtomicStoreFile(metadata: StoreMetadata(storeType: "binary", modelVersionHashes: model.entityVersionHashesByName))
            // Laid out by the model's entity, as the engine hands objects to a format.
            let quake = try model.entity(named: "Quake")
            file.objects = try data.quakes.enumerated().map { position, row in
                try AtomicStoreObject(
                    entity: quake, primaryKey: Int64(position + 1),
                    attributes: ["magnitude": .double(row.magnitude), "place": .string(row.place), "time": .date(row.time)])
            }
            file.nextPrimaryKey = Int64(data.quakes.count + 1)
            self.file = file
            dictionaries = data.quakes.enumerated().map { position, quake in
                ["key": Int64(position + 1), "magnitude": quake.magnitude, "place": quake.place, "time": quake.time]
            }
            records = data.quakes.enumerated().map { position, quake in
                QuakeRecord(key: Int64(position + 1), magnitude: quake.magnitude, place: quake.place, time: quake.time)
            }
            magnitudeSum = data.quakes.reduce(0) { $0 + $1.magnitude }
            ours = try BinaryStoreFormat().write(file, model: model)
            foundationPlist = try PropertyListSerialization.data(fromPropertyList: dictionaries, format: .binary, options: 0)
            foundationEncoder = try BinaryStoreWorkloads.encoder.encode(records)
            storeURL = try Scratch.makeDirectory("binary").appendingPathComponent("Quakes.binary")
            try ours.write(to: storeURL)
            func megabytes(_ data: Foundation.Data) -> String { String(format: "%.2f MB", Double(data.count) / 1e6) }
            print("  files: ours \(megabytes(ours)), foundation-plist \(megabytes(foundationPlist)), foundation-encoder \(megabytes(foundationEncoder))")
        }
    }

    struct QuakeRecord: Codable {
        let key: Int64
        let magnitude: Double
        let place: String
        let time: Date
    }

    static var encoder: PropertyListEncoder {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        return encoder
    }

    // MARK: Save

    /// Timed: the format writing the whole file.
    static func save(_ data: Data100k) throws -> Duration {
        var bytes = Foundation.Data()
        let elapsed = try measure { bytes = try BinaryStoreFormat().write(data.file, model: data.model) }
        guard bytes.count == data.ours.count else { throw BenchmarkError.wrongResult("wrote \(bytes.count) bytes, expected \(data.ours.count)") }
        return elapsed
    }

    static func saveFoundationPlist(_ data: Data100k) throws -> Duration {
        var bytes = Foundation.Data()
        let elapsed = try measure { bytes = try PropertyListSerialization.data(fromPropertyList: data.dictionaries, format: .binary, options: 0) }
        guard !bytes.isEmpty else { throw BenchmarkError.wrongResult("empty property list") }
        return elapsed
    }

    static func saveFoundationEncoder(_ data: Data100k) throws -> Duration {
        var bytes = Foundation.Data()
        let encoder = Self.encoder
        let elapsed = try measure { bytes = try encoder.encode(data.records) }
        guard !bytes.isEmpty else { throw BenchmarkError.wrongResult("empty property list") }
        return elapsed
    }

    // MARK: Load

    /// Timed: the format reading the whole file into the atomic-store file the engine loads.
    static func load(_ data: Data100k) throws -> Duration {
        var file: AtomicStoreFile?
        let elapsed = try measure { file = try BinaryStoreFormat().read(data.ours, model: data.model) }
        let sum = file?.objects.reduce(0.0) { sum, object in
            guard case .double(let magnitude)? = object.attributes["magnitude"] else { return sum }
            return sum + magnitude
        }
        try check(count: file?.objects.count ?? 0, sum: sum ?? 0, against: data)
        return elapsed
    }

    /// Timed: a whole store load — the file read from disk, decoded, checked against the model
    /// and made into the engine's snapshot graph.
    static func openStore(_ data: Data100k) throws -> Duration {
        var store: AtomicStore?
        let description = PersistentStoreDescription(type: .binary, url: data.storeURL)
        let elapsed = try measure {
            store = try AtomicStore(PersistentStoreLoadRequest(description: description, model: data.model), type: .binary, format: BinaryStoreFormat())
        }
        guard case .count(let count)? = try store?.execute(StoreFetchRequest(entityName: "Quake", resultType: .count)) else {
            throw BenchmarkError.wrongResult("the store cannot count")
        }
        guard count == data.records.count else { throw BenchmarkError.wrongResultCount(found: count, expected: data.records.count) }
        return elapsed
    }

    static func loadFoundationPlist(_ data: Data100k) throws -> Duration {
        var object: Any?
        let elapsed = try measure { object = try PropertyListSerialization.propertyList(from: data.foundationPlist, options: [], format: nil) }
        let rows = object as? [[String: Any]] ?? []
        let sum = rows.reduce(0.0) { $0 + ((($1["magnitude"] as? NSNumber)?.doubleValue) ?? 0) }
        try check(count: rows.count, sum: sum, against: data)
        return elapsed
    }

    static func loadFoundationEncoder(_ data: Data100k) throws -> Duration {
        var records: [QuakeRecord] = []
        let decoder = PropertyListDecoder()
        let elapsed = try measure { records = try decoder.decode([QuakeRecord].self, from: data.foundationEncoder) }
        try check(count: records.count, sum: records.reduce(0) { $0 + $1.magnitude }, against: data)
        return elapsed
    }

    private static func check(count: Int, sum: Double, against data: Data100k) throws {
        guard count == data.records.count else { throw BenchmarkError.wrongResultCount(found: count, expected: data.records.count) }
        guard abs(sum - data.magnitudeSum) <= 1e-6 * abs(data.magnitudeSum) else {
            throw BenchmarkError.wrongResult("magnitudes sum to \(sum), expected \(data.magnitudeSum)")
        }
    }
}
