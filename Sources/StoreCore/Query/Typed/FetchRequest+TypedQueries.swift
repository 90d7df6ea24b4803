import Foundation

extension StorePredicate {
    /// Translates a predicate written with Foundation's `#Predicate` into the query tree, so that
    /// every store runs it as it runs the same condition written as a format string.
    ///
    /// Key paths name `@Attribute` and `@Relationship` properties (each becomes the property's
    /// model key); `==`, `!=`, `<`, `<=`, `>`, `>=`, `&&`, `||`, `!`, `+`, `-`, `*`, `/`, `%`,
    /// optional chaining through to-one relationships, `??`, ternaries, `contains(_:)` and
    /// `starts(with:)` on strings, `contains(_:)` on captured arrays, `count`/`isEmpty`,
    /// `contains(where:)`, `allSatisfy(_:)` and `filter(_:)` over to-many relationships (as
    /// subqueries), and `contains(_:)` on ranges are translated; captured values become constants.
    ///
    /// For example:
    ///
    /// ```swift
    /// let minimum = 10
    /// request.predicate = try StorePredicate(#Predicate<Post> { $0.views >= minimum && $0.author?.name == "Ada" })
    /// // views >= 10 AND author.name == "Ada"
    /// ```
    ///
    /// - Throws: ``FetchError`` (`.untranslatablePredicate`) naming the first part with no form
    ///   in a store query: a method Stowage does not translate, or a key path to a property that
    ///   is not in the model (a stored Swift property, a computed one).
    public init<Root: ManagedObject>(_ predicate: Predicate<Root>) throws(FetchError) {
        var translator = PredicateTranslator(root: predicate.variable)
        self = try translator.predicate(predicate.expression)
    }
}

extension StoreSortDescriptor {
    /// Translates a Foundation `SortDescriptor` on an `@Attribute` (or a to-one relationship's
    /// key) into a sort on the property's model key.
    ///
    /// A string comparator's options carry over: case-insensitive, localized, or both.
    ///
    /// For example:
    ///
    /// ```swift
    /// request.sortDescriptors = [try StoreSortDescriptor(SortDescriptor(\Post.title, order: .reverse))]
    /// ```
    ///
    /// - Throws: ``FetchError`` (`.untranslatablePredicate`) when the descriptor sorts by a
    ///   comparator instead of a key path, or by a key path that is not a model property.
    public init<Root: ManagedObject>(_ descriptor: SortDescriptor<Root>) throws(FetchError) {
        guard let keyPath = descriptor.keyPath else {
            throw FetchError(.untranslatablePredicate, "SortDescriptor: sorts by a comparator, not by a key path a store can sort by")
        }
        guard let key = ModelKeyPaths.key(for: keyPath) else {
            throw FetchError(
                .untranslatablePredicate,
                "SortDescriptor: \(ModelKeyPaths.describe(keyPath)); a store sorts only by @Attribute and @Relationship properties of a ManagedObject subclass")
        }
        var comparison = Comparison.default
        if let strings = descriptor.stringComparator {
            // The comparator's options are not public; its reflection shows them.
            let fields = Dictionary(Mirror(reflecting: strings).children.compactMap { child in child.label.map { ($0, child.value) } }) { a, _ in a }
            let caseInsensitive = (fields["options"] as? String.CompareOptions)?.contains(.caseInsensitive) ?? false
            let isLocalized = fields["isLocalized"] as? Bool ?? false
            comparison = switch (isLocalized, caseInsensitive) {
            case (true, true): .localizedCaseInsensitive
            case (true, false): .localized
            case (false, true): .caseInsensitive
            case (false, false): .default
            }
        }
        self.init(keyPath: key, ascending: descriptor.order == .forward, comparison: comparison)
    }
}

extension FetchRequest {
    /// A request for objects of `entity`'s entity, filtered and sorted with Foundation's
    /// `#Predicate` and `SortDescriptor`, returning any result type (objects, IDs, dictionaries).
    ///
    /// For example:
    ///
    /// ```swift
    /// let ids = FetchRequest<ManagedObjectID>(entity: Post.self, predicate: #Predicate { $0.views > 100 })
    /// ```
    ///
    /// A part of the predicate or a sort that cannot be translated is reported when the request
    /// is fetched, as a ``FetchError`` (`.untranslatablePredicate`) naming it.
    public init<Root: ManagedObject>(entity: Root.Type, predicate: Predicate<Root>? = nil, sortBy: [SortDescriptor<Root>] = []) {
        self.init(entityName: Root.entityName)
        do throws(FetchError) {
            storeRequest.predicate = try predicate.map { predicate throws(FetchError) in try StorePredicate(predicate) }
            storeRequest.sortDescriptors = try sortBy.map { sort throws(FetchError) in try StoreSortDescriptor(sort) }
        } catch {
            storeRequest.translationFailure = error.message
        }
    }
}

extension FetchRequest where Result: ManagedObject {
    /// A request for `Result` objects, filtered and sorted with Foundation's `#Predicate` and
    /// `SortDescriptor` — the compiler checks the property names and value types.
    ///
    /// For example:
    ///
    /// ```swift
    /// let request = FetchRequest<Post>(
    ///     predicate: #Predicate { $0.title.starts(with: "Misty") && $0.comments.count > 2 },
    ///     sortBy: [SortDescriptor(\.title)]
    /// )
    /// let posts = try context.fetch(request)
    /// ```
    ///
    /// A part of the predicate or a sort that cannot be translated is reported when the request
    /// is fetched, as a ``FetchError`` (`.untranslatablePredicate`) naming it; to find out at
    /// once, translate with ``StorePredicate/init(_:)`` and ``StoreSortDescriptor/init(_:)``.
    public init(predicate: Predicate<Result>?, sortBy: [SortDescriptor<Result>] = []) {
        self.init(entity: Result.self, predicate: predicate, sortBy: sortBy)
    }
}

extension StoreTerm {
    /// The model key of an `@Attribute` or `@Relationship` property, for the predicate builder:
    /// `.key(\Post.title).beginsWith("Misty")`.
    ///
    /// A key path that names no model property (a stored or computed Swift property, a chain)
    /// becomes a key no entity has, so the fetch reports it as a ``FetchError``
    /// (`.invalidKeyPath`). Follow relationships one property at a time:
    /// `.key(\Post.author).key(\Author.name)`.
    public static func key<Root: ManagedObject, Value>(_ keyPath: KeyPath<Root, Value>) -> StoreTerm {
        .key(ModelKeyPaths.key(for: keyPath) ?? Self.unknownKey(keyPath))
    }

    /// A typed property followed further: `.key(\Post.author).key(\Author.name)`.
    public func key<Root: ManagedObject, Value>(_ keyPath: KeyPath<Root, Value>) -> StoreTerm {
        key(ModelKeyPaths.key(for: keyPath) ?? Self.unknownKey(keyPath))
    }

    /// A key no entity has, naming the key path (without dots, which would split it into a path).
    private static func unknownKey(_ keyPath: AnyKeyPath) -> String {
        "<\(ModelKeyPaths.describe(keyPath).replacingOccurrences(of: ".", with: "·")), not an @Attribute or @Relationship property>"
    }
}

extension StorePredicate {
    /// A typed property as the start of a builder term, where a predicate is expected:
    /// `.key(\Post.views) > 10 && .key(\Post.title).beginsWith("Misty")`.
    public static func key<Root: ManagedObject, Value>(_ keyPath: KeyPath<Root, Value>) -> StoreTerm { StoreTerm.key(keyPath) }
}
