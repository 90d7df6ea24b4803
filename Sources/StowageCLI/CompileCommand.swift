import ArgumentParser
import Foundation
import Stowage

/// `stowage compile`: an Xcode model as the compiled model Xcode's momc makes — a `.momd` bundle
/// of `.mom` files with its `VersionInfo.plist`, or one `.mom` — written with the archiver that
/// writes the SQLite stores' model cache, so Core Data and Stowage load it.
struct CompileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compile",
        abstract: "Compile an Xcode model (.xcdatamodeld → .momd, .xcdatamodel → .mom), as Xcode's momc does.",
        discussion: """
            Every version of a .xcdatamodeld becomes a .mom in the output .momd, with a \
            VersionInfo.plist naming the current version and recording each version's entity \
            hashes; a single .xcdatamodel becomes one .mom. The output must not exist yet. What a \
            compiled model cannot hold (a template whose predicate uses SUBQUERY, a composite \
            attribute) is left out with a warning. Example: stowage compile Blog.xcdatamodeld Blog.momd
            """
    )

    @Argument(help: "The Xcode model: a .xcdatamodeld package or a .xcdatamodel.")
    var model: String

    @Argument(help: "The compiled model to write: a .momd for a package, a .mom for one version.")
    var output: String

    func run() throws {
        let source = URL(fileURLWithPath: model)
        let target = URL(fileURLWithPath: output)
        guard !FileManager.default.fileExists(atPath: target.path) else {
            throw ValidationError("\(target.path) already exists; compile into a new path")
        }
        let bundle = try ManagedObjectModelBundle(contentsOf: source)
        for warning in bundle.warnings { FileHandle.standardError.write(Data("warning: \(warning)\n".utf8)) }
        var files: [(name: String, data: Data)] = []
        var hashes: [String: PropertyListValue] = [:]
        for version in bundle.versions {
            var archiver = CompiledModelArchiver()
            files.append((version.name + ".mom", try archiver.encode(version.model)))
            for line in archiver.leftOut { FileHandle.standardError.write(Data("warning: \(version.name): left out \(line)\n".utf8)) }
            hashes[version.name] = .dictionary(version.model.coreDataEntityVersionHashesByName.mapValues(PropertyListValue.data))
        }
        if ["xcdatamodeld", "momd"].contains(source.pathExtension.lowercased()) {
            files.append(("VersionInfo.plist", BinaryPropertyListWriter().write(.dictionary([
                "NSManagedObjectModel_CurrentVersionName": .string(bundle.currentVersionName),
                "NSManagedObjectModel_VersionHashes": .dictionary(hashes),
            ]))))
            try writeBundle(files, to: target)
            print("Compiled \(bundle.versions.count) version(s) into \(target.path) (current: \(bundle.currentVersionName))")
        } else {
            guard files.count == 1, let only = files.first else { throw ValidationError("\(source.path) is not one model version") }
            try write(only.data, to: target)
            print("Compiled \(source.lastPathComponent) into \(target.path)")
        }
    }

    /// The files of a `.momd`, written into a new directory that is removed again if one fails.
    private func writeBundle(_ files: [(name: String, data: Data)], to directory: URL) throws {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        } catch {
            throw ValidationError("cannot create \(directory.path): \(error.localizedDescription)")
        }
        do {
            for file in files { try write(file.data, to: directory.appendingPathComponent(file.name)) }
        } catch {
            do {
                try FileManager.default.removeItem(at: directory)
            } catch let cleanup {
                FileHandle.standardError.write(Data("warning: the partly written \(directory.path) could not be removed: \(cleanup.localizedDescription)\n".utf8))
            }
            throw error
        }
    }

    private func write(_ data: Data, to url: URL) throws {
        do {
            try data.write(to: url, options: .withoutOverwriting)
        } catch {
            throw ValidationError("cannot write \(url.path): \(error.localizedDescription)")
        }
    }
}
