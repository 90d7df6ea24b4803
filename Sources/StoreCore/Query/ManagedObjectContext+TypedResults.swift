import Foundation

extension ManagedObjectContext {
    /// Runs a dictionary fetch and decodes each row into `T` (``StoreValueDecoder``): results
    /// that cross actors as `Sendable` values, read without switching over ``StoreValue``.
    ///
    /// For example:
    ///
    /// ```swift
    /// struct Busiest: Decodable, Sendable { let place: String; let quakes: Int }
    /// var request = FetchRequest<FetchedDictionary>(entityName: "Quake")
    /// request.propertiesToFetch = ["place", .expression(.init(name: "quakes", expression: .function("count:", [.keyPath("place")])))]
    /// request.propertiesToGroupBy = ["place"]
    /// let busiest = try context.fetch(request, as: Busiest.self)
    /// ```
    ///
    /// - Throws: what ``fetch(_:)`` throws; `DecodingError` naming the key of a row that does not decode.
    public func fetch<T: Decodable>(_ request: FetchRequest<FetchedDictionary>, as type: T.Type) throws -> [T] {
        try StoreValueDecoder().decode([T].self, from: fetch(request))
    }
}

extension Dictionary where Key == String, Value == StoreValue {
    /// A value of a dictionary result as a Swift type: `nil` when the row has no such key, the
    /// value is null, or it is of another kind.
    ///
    /// For example:
    ///
    /// ```swift
    /// let title = row.value("title", as: String.self)      // String?
    /// let count = row.value("quakes", as: Int.self)
    /// ```
    public func value<T: StoreValueConvertible>(_ key: String, as type: T.Type) -> T? {
        guard let value = self[key], !value.isNull else { return nil }
        return T(storeValue: value)
    }
}
