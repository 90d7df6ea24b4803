import Foundation

/// What a path handed to the model loaders is: a `.xcdatamodeld` package (several versions), a
/// `.xcdatamodel` folder or its `contents` file (one version), a compiled `.momd` bundle
/// (several versions) or `.mom` file (one version). Checks the file system, not just the name.
///
/// For example:
///
/// ```swift
/// try ModelFileLocation(url)   // .package(url) for "Model.xcdatamodeld"
/// ```
enum ModelFileLocation {
    case package(URL)
    /// The version's name and its `contents` file.
    case version(name: String, contents: URL)
    /// A compiled `.momd` bundle of `.mom` versions.
    case compiledBundle(URL)
    /// A compiled `.mom` file: its version name and the file.
    case compiledVersion(name: String, file: URL)

    init(_ url: URL) throws(ModelFileError) {
        let url = url.standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ModelFileError(.notFound, url: url, "there is no model file here")
        }
        let fileExtension = url.pathExtension.lowercased()
        switch fileExtension {
        case "momd" where isDirectory.boolValue:
            self = .compiledBundle(url)
            return
        case "mom" where !isDirectory.boolValue:
            self = .compiledVersion(name: url.deletingPathExtension().lastPathComponent, file: url)
            return
        case "omo":
            throw ModelFileError(.unsupportedFormat, url: url, "an optimized compiled model (.omo) is Core Data's private load-time copy of the .mom beside it, in an undocumented format; load the .mom (or the .momd bundle) instead")
        case "mom", "momd":
            throw ModelFileError(.malformed, url: url, "a .\(fileExtension) should be a \(fileExtension == "mom" ? "file" : "folder")")
        default:
            break
        }
        if !isDirectory.boolValue {
            let folder = url.deletingLastPathComponent()
            self = .version(name: Self.versionName(of: folder), contents: url)
            return
        }
        if fileExtension == "xcdatamodeld" {
            self = .package(url)
            return
        }
        let contents = url.appendingPathComponent("contents")
        if FileManager.default.fileExists(atPath: contents.path) {
            self = .version(name: Self.versionName(of: url), contents: contents)
        } else if FileManager.default.fileExists(atPath: url.appendingPathComponent("elements").path) {
            throw ModelFileError(.unsupportedFormat, url: url, "an Xcode 3 model: its 'elements' file is a keyed archive of Xcode 3's own model-editor classes (XDUMLClassImp, XDUMLPropertyImp, …), not of Core Data's model classes, so it is read neither as XML nor as a compiled model; open it in Xcode 4 or later, which saves it as XML ('contents'), or ship the .mom Xcode compiles from it")
        } else if Self.versionFolders(in: url).isEmpty == false {
            self = .package(url)
        } else {
            throw ModelFileError(.notFound, url: url, "the folder has no 'contents' file: it is not an .xcdatamodel")
        }
    }

    /// "BookmarksModel 2" for ".../BookmarksModel 2.xcdatamodel".
    static func versionName(of folder: URL) -> String {
        folder.pathExtension.lowercased() == "xcdatamodel" ? folder.deletingPathExtension().lastPathComponent : folder.lastPathComponent
    }

    /// The `.xcdatamodel` folders directly inside `package`, by name.
    static func versionFolders(in package: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: package.path)) ?? []
        // By version name ("Model" before "Model 2"), numbers compared as numbers ("Model 2" before "Model 10").
        return names.filter { $0.lowercased().hasSuffix(".xcdatamodel") }
            .map { package.appendingPathComponent($0, isDirectory: true) }
            .sorted { versionName(of: $0).localizedStandardCompare(versionName(of: $1)) == .orderedAscending }
    }
}
