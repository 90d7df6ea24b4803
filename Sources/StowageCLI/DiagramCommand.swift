import ArgumentParser
import Foundation
import Stowage

/// `stowage diagram`: draws a model — from a model file, or from a store as `stowage inspect`
/// reads it — as SVG (through Graphviz's `dot`) or as DOT text.
struct DiagramCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diagram",
        abstract: "Draw a model's entities, attributes, relationships and inheritance (SVG or Graphviz DOT).",
        discussion: """
            The input is `demo` (the demo's model), a model file — .xcdatamodeld / .xcdatamodel \
            (Xcode) or .momd / .mom (compiled) — or a store file (SQLite, XML or binary), whose \
            model is read as `stowage inspect` reads it: the store's cached copy \
            (Z_MODELCACHE), or inferred from the store's layout. SVG needs Graphviz's `dot` \
            (apt install graphviz); without it the DOT text is written instead, with a note. \
            Example: stowage diagram demo --output demo.svg
            """
    )

    @Argument(help: "`demo`, a model file (.xcdatamodeld, .xcdatamodel, .momd, .mom) or a store file.")
    var input: String

    @Option(help: "svg (through Graphviz's dot when it is installed) or dot.")
    var format: DiagramFormat = .svg

    @Option(help: "The file to write (default: standard output).")
    var output: String?

    func run() throws {
        let (model, title) = try loadModel()
        let dot = ModelDiagram(model: model, title: title).dot
        var data = Data(dot.utf8)
        if format == .svg {
            if let svg = try Graphviz.svg(fromDOT: data) {
                data = svg
            } else {
                FileHandle.standardError.write(Data("note: Graphviz's `dot` is not installed (apt install graphviz); writing DOT text instead of SVG\n".utf8))
            }
        }
        if let output {
            do {
                try data.write(to: URL(fileURLWithPath: output))
            } catch {
                throw ValidationError("cannot write \(output): \(error.localizedDescription)")
            }
        } else {
            FileHandle.standardOutput.write(data)
        }
    }

    private func loadModel() throws -> (ManagedObjectModel, String) {
        let url = URL(fileURLWithPath: input)
        let modelExtensions = ["xcdatamodeld", "xcdatamodel", "momd", "mom"]
        if input == "demo" {
            return (try DemoModel.make(), "demo")
        }
        if modelExtensions.contains(url.pathExtension.lowercased()) || url.lastPathComponent == "contents" {
            return (try ManagedObjectModel(contentsOf: url), url.deletingPathExtension().lastPathComponent)
        }
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw ValidationError("there is no file at \(url.path)")
        }
        let inferred = try InferredModel(storeAt: url)
        return (inferred.model, url.lastPathComponent)
    }
}

/// The formats `diagram` writes.
enum DiagramFormat: String, ExpressibleByArgument, CaseIterable {
    case svg, dot
}

/// Graphviz's `dot`, when it is installed.
enum Graphviz {
    /// `dot -Tsvg` on `source`; `nil` when `dot` is not on the `PATH`.
    static func svg(fromDOT source: Data) throws -> Data? {
        guard let dot = executable() else { return nil }
        let process = Process()
        process.executableURL = dot
        process.arguments = ["-Tsvg"]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Write on another thread: dot may fill its output pipe before it has read all its input.
        let writer = Thread {
            input.fileHandleForWriting.write(source)
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let svg = output.fileHandleForReading.readDataToEndOfFile()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ValidationError("Graphviz's dot failed (\(process.terminationStatus)): \(message)")
        }
        return svg
    }

    private static func executable() -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":")
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent("dot") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}
