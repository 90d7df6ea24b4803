/// An index on an entity's properties, recorded in the model for stores that build indexes
/// (the SQLite store creates them; atomic stores ignore them).
///
/// For example:
///
/// ```swift
/// EntityDescription("Quake", indexes: [
///     FetchIndexDescription(name: "byTime", elements: [.init("time", ascending: false)]),
///     FetchIndexDescription(name: "byLocation", elements: [.init("latitude"), .init("longitude")], kind: .rTree),
/// ]) { … }
/// ```
public struct FetchIndexDescription: Sendable, Hashable {
    /// How the index is organised.
    public enum Kind: Sendable, Hashable {
        case binary
        case rTree
    }

    /// One indexed property.
    public struct Element: Sendable, Hashable {
        public var property: String
        public var ascending: Bool
        public init(_ property: String, ascending: Bool = true) {
            self.property = property
            self.ascending = ascending
        }
    }

    public var name: String
    public var elements: [Element]
    public var kind: Kind
    /// A predicate (format string) restricting the index to some rows (a partial index).
    public var partialIndexPredicate: String?

    public init(name: String, elements: [Element], kind: Kind = .binary, partialIndexPredicate: String? = nil) {
        self.name = name
        self.elements = elements
        self.kind = kind
        self.partialIndexPredicate = partialIndexPredicate
    }
}
