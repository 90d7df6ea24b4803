import ArgumentParser
import Foundation

/// A store named on the command line: a file path, or a `postgres://` URL.
struct StoreLocation {
    let url: URL

    init(_ argument: String) throws {
        if argument.hasPrefix("postgres://") || argument.hasPrefix("postgresql://") {
            guard let url = URL(string: argument) else { throw ValidationError("'\(argument)' is not a valid URL") }
            self.url = url
        } else {
            url = URL(fileURLWithPath: argument)
        }
    }

    /// The path of a file; a server URL without its password.
    static func display(_ url: URL) -> String {
        guard !url.isFileURL, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.path }
        if components.password != nil { components.password = "…" }
        return components.string ?? url.absoluteString
    }
}
