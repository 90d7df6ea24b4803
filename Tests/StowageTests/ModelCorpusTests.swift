import Foundation
import ModelFiles
import StoreCore
import StoreTestSupport
import XCTest

/// Loads every model version (`*.xcdatamodel`) under the directory `STOWAGE_MODEL_CORPUS` names
/// and round-trips a graph through every store type: a store made from the model, one or two
/// objects of every concrete entity with values for every stored attribute and relationship
/// (``ModelCorpusGraph``), saved, reopened in a new coordinator, fetched and compared. Prints how
/// many versions pass per store and every failure; writes them as JSON to
/// `STOWAGE_MODEL_CORPUS_REPORT` when set. Skipped without the variable (the corpus of public
/// apps' models is not part of the repository, so CI never runs it).
///
/// ```
/// STOWAGE_MODEL_CORPUS=/tmp/models-corpus swift test --skip-build --filter ModelCorpusTests
/// ```
final class ModelCorpusTests: XCTestCase {
    private static let backends: [StoreBackend] = [.sqlite, .xml, .binary, .memory]

    func testEveryModelVersionRoundTripsThroughEveryStore() throws {
        guard let root = ProcessInfo.processInfo.environment["STOWAGE_MODEL_CORPUS"] else {
            throw XCTSkip("set STOWAGE_MODEL_CORPUS to a directory of .xcdatamodel folders")
        }
        let versions = try Self.modelVersions(under: URL(fileURLWithPath: root))
        var results: [[String: String]] = []
        var passes: [String: Int] = ["load": 0]
        var everyStore = 0
        for url in versions {
            let name = String(url.path.dropFirst(root.count))
            var row = ["version": name]
            let model: ManagedObjectModel
            do {
                model = try ManagedObjectModel(contentsOf: url)
                passes["load", default: 0] += 1
            } catch {
                row["load"] = "\(error)"
                results.append(row)
                continue
            }
            var passedAll = true
            for backend in Self.backends {
                do {
                    try Self.roundTrip(model, through: backend)
                    passes[backend.description, default: 0] += 1
                } catch {
                    row[backend.description] = "\(error)"
                    passedAll = false
                }
            }
            if passedAll { everyStore += 1 }
            results.append(row)
        }
        print("model corpus: \(versions.count) versions; loaded \(passes["load"] ?? 0); "
            + Self.backends.map { "\($0): \(passes[$0.description] ?? 0)" }.joined(separator: ", ")
            + "; every store: \(everyStore)")
        for row in results where row.count > 1 {
            for (key, message) in row.sorted(by: { $0.key < $1.key }) where key != "version" {
                print("FAIL \(row["version"] ?? "") [\(key)] \(message.prefix(400))")
            }
        }
        if let report = ProcessInfo.processInfo.environment["STOWAGE_MODEL_CORPUS_REPORT"] {
            let data = try JSONSerialization.data(withJSONObject: results, options: [.prettyPrinted, .sortedKeys])
            try data.write(to: URL(fileURLWithPath: report))
        }
    }

    /// Every `.xcdatamodel` folder under `root`, in path order.
    static func modelVersions(under root: URL) throws -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        var urls: [URL] = []
        for case let url as URL in enumerator where url.pathExtension == "xcdatamodel" {
            urls.append(url)
            enumerator.skipDescendants()
        }
        return urls.sorted { $0.path < $1.path }
    }

    /// Saves a graph of `model` in a new store of `backend`, reopens it and compares what comes back.
    static func roundTrip(_ model: ManagedObjectModel, through backend: StoreBackend) throws {
        let stack = try BackendStack(backend, model: model)
        let graph = ModelCorpusGraph(model: model)
        let context = stack.newContext()
        let expected = try context.performAndWait { () throws -> [ManagedObjectID: [String: String]] in
            let objects = try graph.insert(into: context)
            try context.save()
            var expected: [ManagedObjectID: [String: String]] = [:]
            for object in objects.values.joined() { expected[object.objectID] = try values(of: object, graph: graph) }
            return expected
        }
        try stack.reopen()
        let reader = stack.newContext()
        try reader.performAndWait {
            for entity in graph.concreteEntities {
                let fetched = try reader.fetch(FetchRequest<ManagedObject>(entityName: entity.name)).filter { $0.entity.name == entity.name }
                let wanted = expected.keys.filter { $0.entityName == entity.name }.count
                guard fetched.count == wanted else {
                    throw CorpusMismatch("\(entity.name): fetched \(fetched.count) objects, saved \(wanted)")
                }
                for object in fetched {
                    guard let saved = expected[object.objectID] else {
                        throw CorpusMismatch("\(entity.name): fetched an object that was not saved (\(object.objectID))")
                    }
                    let read = try values(of: object, graph: graph)
                    for (key, value) in saved where read[key] != value {
                        throw CorpusMismatch("\(entity.name).\(key): saved \(value), read \(read[key] ?? "nothing")")
                    }
                    try ModelCorpusQueries.check(object, in: reader, graph: graph)
                }
            }
        }
    }

    /// Every stored attribute and relationship of `object`, as comparable text.
    private static func values(of object: ManagedObject, graph: ModelCorpusGraph) throws -> [String: String] {
        var values: [String: String] = [:]
        for attribute in graph.storedAttributes(of: object.entity) {
            values[attribute.name] = "\(try object.storeValue(forKey: attribute.name))"
        }
        for relationship in graph.storedRelationships(of: object.entity) {
            let value = try object.value(forKey: relationship.name)
            if relationship.isToMany {
                let ids = ((value as? [ManagedObject]) ?? (value as? Set<ManagedObject>).map(Array.init) ?? []).map(\.objectID.description)
                values[relationship.name] = (relationship.isOrdered ? ids : ids.sorted()).joined(separator: ",")
            } else {
                values[relationship.name] = (value as? ManagedObject)?.objectID.description ?? "nil"
            }
        }
        return values
    }
}

private struct CorpusMismatch: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension ModelCorpusTests {
    /// Every `.xcdatamodeld` package under `STOWAGE_MODEL_CORPUS` loads as a bundle (versions that
    /// cannot be read left out with a warning), and every version's `contents` file loads on its own;
    /// prints the model warnings by code.
    func testEveryPackageAndContentsFileLoads() throws {
        guard let root = ProcessInfo.processInfo.environment["STOWAGE_MODEL_CORPUS"] else {
            throw XCTSkip("set STOWAGE_MODEL_CORPUS to a directory of .xcdatamodel folders")
        }
        let rootURL = URL(fileURLWithPath: root)
        var packages: [URL] = []
        if let enumerator = FileManager.default.enumerator(at: rootURL, includingPropertiesForKeys: nil) {
            for case let url as URL in enumerator where url.pathExtension == "xcdatamodeld" {
                packages.append(url)
                enumerator.skipDescendants()
            }
        }
        var loadedPackages = 0, loadedContents = 0, contentsFiles = 0
        var warningCodes: [String: Int] = [:]
        for package in packages.sorted(by: { $0.path < $1.path }) {
            do {
                let bundle = try ManagedObjectModelBundle(contentsOf: package)
                loadedPackages += 1
                for warning in bundle.warnings { print("PACKAGE WARNING \(package.lastPathComponent): \(warning)") }
            } catch {
                print("PACKAGE FAIL \(package.path.dropFirst(root.count)): \(error)")
            }
        }
        for version in try Self.modelVersions(under: rootURL) {
            let contents = version.appendingPathComponent("contents")
            guard FileManager.default.fileExists(atPath: contents.path) else { continue }
            contentsFiles += 1
            do {
                let model = try ManagedObjectModel(contentsOf: contents)
                loadedContents += 1
                for warning in model.warnings { warningCodes["\(warning.code)", default: 0] += 1 }
            } catch {
                print("CONTENTS FAIL \(contents.path.dropFirst(root.count)): \(error)")
            }
        }
        print("model corpus packages: \(loadedPackages) of \(packages.count) load; contents files: \(loadedContents) of \(contentsFiles); model warnings: \(warningCodes.sorted { $0.key < $1.key })")
    }
}
