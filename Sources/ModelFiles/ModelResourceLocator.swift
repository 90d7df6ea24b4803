import Foundation

/// Finds an Xcode model by name among an application's resources, the way Core Data's
/// `NSPersistentContainer(name:)` finds `<name>.momd` in the app bundle — adapted to SwiftPM,
/// which on Linux puts each target's resources in a `<Package>_<Target>.resources` folder next
/// to the executable.
///
/// In each directory of ``defaultSearchDirectories()`` (or the ones given), in order, it takes the
/// first of `<name>.xcdatamodeld`, `<name>.xcdatamodel`; when no directory has the model's
/// source, the first compiled `<name>.momd` or `<name>.mom` (what `.process` makes of the
/// package on macOS, and what an app bundle ships). Declare the package as a resource with
/// `.copy("Blog.xcdatamodeld")`.
///
/// For example:
///
/// ```swift
/// let url = try ModelResourceLocator.modelURL(named: "Blog")
/// let model = try ManagedObjectModel(contentsOf: url)
/// ```
public enum ModelResourceLocator {
    /// Where models are looked for, in order, without duplicates:
    ///
    /// 1. `Bundle.main`'s resource directory, then its bundle directory;
    /// 2. the directory of the running executable;
    /// 3. every SwiftPM resource bundle in that directory (`*.resources`, and `*.bundle` with its
    ///    `Contents/Resources` on macOS), in name order;
    /// 4. the resource directories of every other loaded bundle (`Bundle.allBundles`).
    public static func defaultSearchDirectories() -> [URL] {
        var directories: [URL] = []
        if let resources = Bundle.main.resourceURL { directories.append(resources) }
        directories.append(Bundle.main.bundleURL)
        let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments.first ?? "")
        let executableDirectory = executable.deletingLastPathComponent()
        directories.append(executableDirectory)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: executableDirectory.path)) ?? []
        for name in names.sorted() {
            if name.hasSuffix(".resources") {
                directories.append(executableDirectory.appendingPathComponent(name, isDirectory: true))
            } else if name.hasSuffix(".bundle") {
                let bundle = executableDirectory.appendingPathComponent(name, isDirectory: true)
                directories.append(bundle)
                directories.append(bundle.appendingPathComponent("Contents/Resources", isDirectory: true))
            }
        }
        for bundle in Bundle.allBundles where bundle != Bundle.main {
            if let resources = bundle.resourceURL { directories.append(resources) }
        }
        var seen: Set<String> = []
        return directories.filter { seen.insert($0.standardizedFileURL.path).inserted }
    }

    /// The first `<name>.xcdatamodeld` or `<name>.xcdatamodel` in `directories`, else the first
    /// `<name>.momd` or `<name>.mom`.
    ///
    /// - Throws: ``ModelFileError`` — `notFound` (listing every place searched) when
    ///   nothing was found.
    public static func modelURL(named name: String, searching directories: [URL]? = nil) throws(ModelFileError) -> URL {
        let directories = directories ?? defaultSearchDirectories()
        var compiled: URL?
        for directory in directories {
            for fileExtension in ["xcdatamodeld", "xcdatamodel"] {
                let candidate = directory.appendingPathComponent("\(name).\(fileExtension)", isDirectory: true)
                if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            }
            for fileExtension in ["momd", "mom"] where compiled == nil {
                let candidate = directory.appendingPathComponent("\(name).\(fileExtension)")
                if FileManager.default.fileExists(atPath: candidate.path) { compiled = candidate }
            }
        }
        if let compiled { return compiled }
        let places = directories.map(\.path).joined(separator: ", ")
        throw ModelFileError(.notFound, url: URL(fileURLWithPath: name + ".xcdatamodeld"), "no \(name).xcdatamodeld, \(name).xcdatamodel, \(name).momd or \(name).mom found; searched: \(places)")
    }
}
