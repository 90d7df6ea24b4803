import Foundation

/// Something in a model file that Stowage read past: an element or attribute it does not know,
/// a value it could not use (a default that does not fit the type, a predicate it cannot parse),
/// or a feature it records but does not implement — or a flaw the model's checks accept because
/// Core Data loads such models too (an inverse that does not point back; see
/// `ManagedObjectModel.warnings`, which are also logged). Loading succeeds; the warnings say what
/// was left out or taken as it is, so nothing is dropped silently.
///
/// For example:
///
/// ```swift
/// let version = try ModelVersion(contentsOf: url)
/// for warning in version.warnings { print(warning) }   // "…/contents, line 9: unknown attribute 'foo' on <attribute>"
/// ```
public struct ModelFileWarning: Sendable, Hashable, CustomStringConvertible {
    /// The file the warning is about.
    public let url: URL
    /// The line of the element concerned.
    public let line: Int
    /// What was read past, in words.
    public let message: String

    /// A warning about the element at `line` of the file at `url`.
    public init(url: URL, line: Int, _ message: String) {
        self.url = url
        self.line = line
        self.message = message
    }

    public var description: String { "\(url.path), line \(line): \(message)" }
}
