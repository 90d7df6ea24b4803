/// An ordering of fetch results by a key path — Core Data's `NSSortDescriptor` as a value.
///
/// For example:
///
/// ```swift
/// request.sortDescriptors = [.descending("timestamp"), .ascending("title", comparison: .localizedCaseInsensitive)]
/// ```
public struct StoreSortDescriptor: Sendable, Hashable {
    /// How strings are compared.
    public enum Comparison: Sendable, Hashable {
        /// Code-point order for strings, natural order for everything else.
        case `default`
        /// Ignoring case.
        case caseInsensitive
        /// In the user's locale's collation order.
        case localized
        /// In the locale's collation order, ignoring case.
        case localizedCaseInsensitive
    }

    public var keyPath: String
    public var ascending: Bool
    public var comparison: Comparison

    public init(keyPath: String, ascending: Bool = true, comparison: Comparison = .default) {
        self.keyPath = keyPath
        self.ascending = ascending
        self.comparison = comparison
    }

    /// Ascending order by `keyPath`.
    public static func ascending(_ keyPath: String, comparison: Comparison = .default) -> StoreSortDescriptor {
        StoreSortDescriptor(keyPath: keyPath, ascending: true, comparison: comparison)
    }

    /// Descending order by `keyPath`.
    public static func descending(_ keyPath: String, comparison: Comparison = .default) -> StoreSortDescriptor {
        StoreSortDescriptor(keyPath: keyPath, ascending: false, comparison: comparison)
    }
}
