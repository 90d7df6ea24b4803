import BenchLibXML2
import Foundation
import Stowage
import XMLBackend

/// The XML store's workloads: 100,000 tremors (ten attributes each, ``TremorData``) written to
/// and read from an XML store file, next to libxml2's streaming reader walking the same file with
/// no work per node (`libxml2-reader`, the physical limit of any libxml2-based reader).
///
/// Save times the store's own write — the graph as an ``AtomicStoreFile`` turned into the XML
/// document by ``XMLStoreFormat`` and written to the file — because an insert + save through a
/// context is dominated by the context layer (see `memory.insert-save-100k`). Load times what
/// opening the store costs: reading the file, parsing it and building the engine's snapshot
/// graph (``AtomicStore`` with the XML format).
enum XMLStoreWorkloads {
    /// The tremors as the engine hands them to a format: one object per row, keys 1…, laid out
    /// by the model's entity.
    static func makeFile(_ rows: [TremorRow], model: ManagedObjectModel) throws -> AtomicStoreFile {
        var file = AtomicStoreFile(metadata: StoreMetadata(storeType: "xml", modelVersionHashes: model.entityVersionHashesByName))
        let tremor = try model.entity(named: "Tremor")
        file.objects = try rows.enumerated().map { index, row in
            try AtomicStoreObject(entity: tremor, primaryKey: Int64(index + 1), attributes: [
                "magnitude": .double(row.magnitude), "depth": .double(row.depth), "latitude": .double(row.latitude),
                "longitude": .double(row.longitude), "time": .date(Date(timeIntervalSince1970: row.time)),
                "place": .string(row.place), "code": .string(row.code), "status": .string(row.status),
                "significance": .integer(row.significance), "tsunami": .boolean(row.tsunami),
            ])
        }
        file.nextPrimaryKey = Int64(rows.count + 1)
        return file
    }

    /// Timed: the XML document of `file` made and written to a new file in the scratch directory.
    static func save(_ file: AtomicStoreFile, model: ManagedObjectModel, expectedBytes: Int) throws -> Duration {
        let directory = try Scratch.makeDirectory("xml-save")
        defer { Scratch.remove(directory) }
        let url = directory.appendingPathComponent("Tremors.xml")
        let elapsed = try measure {
            let data = try XMLStoreFormat().write(file, model: model)
            try data.write(to: url)
        }
        let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        guard abs(size - expectedBytes) < expectedBytes / 100 else {
            throw BenchmarkError.wrongResult("wrote \(size) bytes, expected about \(expectedBytes)")
        }
        return elapsed
    }

    /// Timed: the XML store at `url` opened (file read, parsed, snapshot graph built); every
    /// object is then counted, untimed.
    static func load(_ url: URL, model: ManagedObjectModel, expected: Int) throws -> Duration {
        var description = PersistentStoreDescription(type: .xml, url: url)
        description.isReadOnly = true
        let request = PersistentStoreLoadRequest(description: description, model: model)
        var store: AtomicStore?
        let elapsed = try measure { store = try AtomicStore(request, type: .xml, format: XMLStoreFormat()) }
        guard case .count(let count)? = try store?.execute(StoreFetchRequest(entityName: "Tremor", resultType: .count)), count == expected else {
            throw BenchmarkError.wrongResult("the loaded store does not hold \(expected) tremors")
        }
        return elapsed
    }

    /// Timed: the file read and walked node by node by libxml2's streaming reader, nothing done
    /// per node; the number of element nodes is checked untimed.
    static func libxml2Walk(_ url: URL, expectedElements: Int) throws -> Duration {
        var elements = 0
        let elapsed = try measure {
            let data = try Data(contentsOf: url)
            try data.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self),
                    let reader = xmlReaderForMemory(base, Int32(bytes.count), nil, "UTF-8", Int32(XML_PARSE_NONET.rawValue))
                else { throw BenchmarkError.failed("xmlReaderForMemory failed") }
                defer { xmlFreeTextReader(reader) }
                var result = xmlTextReaderRead(reader)
                while result == 1 {
                    if xmlTextReaderNodeType(reader) == 1 { elements += 1 }
                    result = xmlTextReaderRead(reader)
                }
                guard result == 0 else { throw BenchmarkError.failed("libxml2 could not read the file") }
            }
        }
        guard elements == expectedElements else { throw BenchmarkError.wrongResultCount(found: elements, expected: expectedElements) }
        return elapsed
    }
}

/// The XML file both load sides read, written once (untimed) by the store's format.
final class XMLFixture {
    let url: URL
    let bytes: Int
    /// Element nodes in the file, as libxml2's reader counts them.
    let elements: Int

    init(file: AtomicStoreFile, model: ManagedObjectModel) throws {
        url = try Scratch.makeDirectory("xml-load").appendingPathComponent("Tremors.xml")
        let data = try XMLStoreFormat().write(file, model: model)
        try data.write(to: url)
        bytes = data.count
        // Start tags: '<' followed by a name, not by '/', '?' or '!'.
        var count = 0
        var previousWasOpen = false
        for byte in data {
            if previousWasOpen, byte != UInt8(ascii: "/"), byte != UInt8(ascii: "?"), byte != UInt8(ascii: "!") { count += 1 }
            previousWasOpen = byte == UInt8(ascii: "<")
        }
        elements = count
        // For MB/s and objects/s in docs/benchmarks.md: the table has no column for them.
        FileHandle.standardError.write(Data("stowage-bench: the XML store file holds \(file.objects.count) objects in \(bytes) bytes\n".utf8))
    }
}
