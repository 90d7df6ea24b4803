import Foundation
@testable import ModelFiles
import StoreCore
import StoreTestSupport
import Testing

/// The seeds of the compiled-model fuzzer (`Fuzz/seeds-compiled-model/`), written by the
/// project's own encoder from the project's own models, and the inputs it found
/// (`Fuzz/regressions-compiled-model/`), each read back without a crash.
///
/// Write the seeds again with
/// `STOWAGE_WRITE_COMPILED_MODEL_SEEDS=Fuzz/seeds-compiled-model swift test --filter CompiledModelFuzzSeeds`.
@Suite struct CompiledModelFuzzSeeds {
    /// The seeds, by file name.
    static func seeds() throws -> [(String, Data)] {
        let old = CompiledModelArchiver.Options(oldLayout: true, listInheritedProperties: true, flagsOnlyInP: true)
        let minimal = try ManagedObjectModel {
            EntityDescription("Note") {
                .attribute("text", .string, optional: false, defaultValue: "")
                .toMany("tags", destination: "Tag", inverse: "notes", ordered: true)
            }
            EntityDescription("Tag") {
                .attribute("name", .string)
                .toMany("notes", destination: "Note", inverse: "tags")
            }
        }
        let minimalData = try CompiledModelArchiver.archive(minimal)
        return [
            ("blog.mom", try CompiledModelArchiver.archive(try BlogModel.make())),
            ("blog-old-layout.mom", try CompiledModelArchiver.archive(try BlogModel.make(), options: old)),
            ("features.mom", try CompiledModelArchiver.archive(try CompiledModelFeatureTests.featureModel())),
            ("features-old-layout.mom", try CompiledModelArchiver.archive(try CompiledModelFeatureTests.featureModel(), options: old)),
            ("minimal.mom", minimalData),
            ("minimal-cache.deflate", Self.storedDeflate(minimalData)),
        ]
    }

    /// `data` as raw deflate made of stored (uncompressed) blocks — what the model cache holds,
    /// without a compressor.
    static func storedDeflate(_ data: Data) -> Data {
        var output = Data()
        var chunks = stride(from: 0, to: data.count, by: 65_535).map { data[$0..<min($0 + 65_535, data.count)] }
        if chunks.isEmpty { chunks = [Data()[...]] }
        for (index, chunk) in chunks.enumerated() {
            output.append(index == chunks.count - 1 ? 1 : 0)
            let length = UInt16(chunk.count)
            output.append(contentsOf: [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)])
            output.append(contentsOf: chunk)
        }
        return output
    }

    @Test func everySeedReads() throws {
        for (name, data) in try Self.seeds() {
            if name.hasSuffix(".deflate") {
                #expect(try CoreDataModelCache.version(decoding: data, storeURL: URL(fileURLWithPath: "/\(name)")).model.entities.count == 2)
            } else {
                let version = try ModelVersion(compiledModel: data, name: name, url: URL(fileURLWithPath: "/\(name)"))
                #expect(!version.model.entities.isEmpty, "\(name)")
            }
        }
        if let directory = ProcessInfo.processInfo.environment["STOWAGE_WRITE_COMPILED_MODEL_SEEDS"] {
            for (name, data) in try Self.seeds() {
                try data.write(to: URL(fileURLWithPath: directory).appendingPathComponent(name))
            }
        }
    }

    /// Every input the fuzzer found: decoding gives a model or a typed error.
    @Test func everyRegressionInputIsReadOrRefused() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/regressions-compiled-model")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names.sorted() where !name.hasPrefix(".") {
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            do {
                _ = try ModelVersion(compiledModel: data, name: "Regression", url: directory.appendingPathComponent(name)).model.coreDataEntityVersionHashesByName
            } catch {
                #expect(!error.message.isEmpty)
            }
            do {
                _ = try CoreDataModelCache.version(decoding: data, storeURL: directory.appendingPathComponent(name))
            } catch {
                #expect(!error.message.isEmpty)
            }
        }
    }
}
