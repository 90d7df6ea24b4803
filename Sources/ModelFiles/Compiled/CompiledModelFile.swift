import Foundation
import StoreCore

/// Loads compiled models: a `.mom` file (one version) and a `.momd` bundle of them, whose
/// `VersionInfo.plist` names the current version (`NSManagedObjectModel_CurrentVersionName`)
/// and records each version's entity hashes (`NSManagedObjectModel_VersionHashes`).
///
/// A `.momd` may also hold an `.omo` beside the current version's `.mom`: Core Data's
/// private, load-time copy of the same model in an undocumented binary format with nothing
/// the `.mom` lacks. It is skipped; an `.omo` without its `.mom` is reported as a warning.
///
/// For example:
///
/// ```swift
/// let version = try CompiledModelFile.loadVersion(name: "Blog 2", file: momURL)
/// version.model.entities
/// ```
enum CompiledModelFile {
    /// Reads and decodes one `.mom` file into a version.
    static func loadVersion(name: String, file: URL) throws(ModelFileError) -> ModelVersion {
        let data = try read(file, limit: CompiledModelReader.maxFileSize)
        return try decode(data, name: name, url: file)
    }

    /// Reads and decodes one `.mom` file: what it describes and the warnings.
    static func readContents(_ file: URL) throws(ModelFileError) -> (ModelContentsReader.Contents, [ModelFileWarning]) {
        var reader = try CompiledModelReader(data: read(file, limit: CompiledModelReader.maxFileSize), url: file)
        return (try reader.read(), reader.warnings)
    }

    /// The `VersionInfo.plist` of a `.momd`, when it has one.
    static func versionInfo(in bundle: URL) throws(ModelFileError) -> CompiledVersionInfo? {
        let url = bundle.appendingPathComponent("VersionInfo.plist")
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try CompiledVersionInfo.read(url)
    }

    /// Decodes compiled-model bytes (a `.mom`, or an inflated model cache) into a version.
    static func decode(_ data: Data, name: String, url: URL) throws(ModelFileError) -> ModelVersion {
        var reader = try CompiledModelReader(data: data, url: url)
        let contents = try reader.read()
        let model: ManagedObjectModel
        do {
            model = try ManagedObjectModel(
                configurations: contents.configurations, versionIdentifiers: contents.versionIdentifiers,
                fetchRequestTemplates: contents.fetchRequestTemplates) { contents.entities }
        } catch {
            throw ModelFileError(.invalidModel, url: url, "the model is not consistent: \(error)", modelError: error)
        }
        return ModelVersion(name: name, url: url, model: model, warnings: reader.warnings)
    }

    /// The bytes of a file no larger than `limit`.
    static func read(_ file: URL, limit: Int) throws(ModelFileError) -> Data {
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        guard size <= limit else {
            throw ModelFileError(.tooLarge, url: file, "the file has \(size) bytes, more than the \(limit) a compiled model may have")
        }
        do {
            return try Data(contentsOf: file)
        } catch {
            throw ModelFileError(.notFound, url: file, "the file cannot be read: \(error.localizedDescription)")
        }
    }

    /// The `.mom` files of a `.momd`, in version order ("Model" before "Model 2" before
    /// "Model 10").
    static func versionFiles(in bundle: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: bundle.path)) ?? []
        return names.filter { $0.lowercased().hasSuffix(".mom") }
            .map { bundle.appendingPathComponent($0) }
            .sorted { versionName(of: $0).localizedStandardCompare(versionName(of: $1)) == .orderedAscending }
    }

    /// "Blog 2" for ".../Blog 2.mom".
    static func versionName(of file: URL) -> String {
        file.deletingPathExtension().lastPathComponent
    }

    /// Warnings for `.omo` files whose `.mom` is missing.
    static func orphanOptimizedModels(in bundle: URL) -> [ModelFileWarning] {
        let names = Set((try? FileManager.default.contentsOfDirectory(atPath: bundle.path)) ?? [])
        return names.filter { $0.lowercased().hasSuffix(".omo") }.sorted().compactMap { name in
            let mom = String(name.dropLast(4)) + ".mom"
            guard !names.contains(mom) else { return nil }
            return ModelFileWarning(url: bundle.appendingPathComponent(name), line: 0,
                "an optimized model (.omo) without its .mom was skipped: it is Core Data's private load-time copy in an undocumented format")
        }
    }

    /// The current version of a `.momd`: `VersionInfo.plist`'s name, or (without it) the only
    /// version, the one named like the bundle, or the last, with a warning saying which.
    static func currentVersion(of bundle: URL, files: [URL], info: CompiledVersionInfo?) throws(ModelFileError) -> (name: String, warnings: [ModelFileWarning]) {
        guard let last = files.last else {
            throw ModelFileError(.notFound, url: bundle, "the .momd holds no .mom version")
        }
        if let name = info?.currentVersionName {
            guard files.contains(where: { versionName(of: $0) == name }) else {
                throw ModelFileError(.malformed, url: bundle.appendingPathComponent("VersionInfo.plist"), "names the current version '\(name)', which is not in the bundle")
            }
            return (name, [])
        }
        if files.count == 1 { return (versionName(of: last), []) }
        let bundleName = bundle.deletingPathExtension().lastPathComponent
        let chosen = files.first { versionName(of: $0) == bundleName } ?? last
        let why = info == nil ? "no VersionInfo.plist" : "VersionInfo.plist names no current version"
        return (versionName(of: chosen), [ModelFileWarning(url: bundle, line: 0, "\(why); \(chosen.lastPathComponent) is taken as the current version")])
    }

    /// A warning when a version's Core Data entity hashes differ from those `VersionInfo.plist`
    /// records for it (a sign that something was read differently from Core Data).
    static func hashWarnings(_ version: ModelVersion, info: CompiledVersionInfo?) -> [ModelFileWarning] {
        guard let recorded = info?.versionHashes[version.name], !recorded.isEmpty else { return [] }
        let computed = version.model.coreDataEntityVersionHashesByName
        let differing = recorded.keys.filter { computed[$0] != recorded[$0] }.sorted()
        guard !differing.isEmpty else { return [] }
        return [ModelFileWarning(url: version.url, line: 0,
            "the entity version hashes of \(differing.joined(separator: ", ")) differ from those VersionInfo.plist records for \(version.name); a store written with this version may not be recognized")]
    }
}
