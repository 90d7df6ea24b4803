/// A fetched property (Core Data's `NSFetchedPropertyDescription`): a named fetch request
/// attached to an entity, whose predicate may refer to the object as `$FETCH_SOURCE`.
///
/// Stowage records fetched properties (from Xcode model files or in code) on
/// ``EntityDescription/fetchedProperties``; they hold no stored values. Run one with
/// `context.fetch(FetchRequest<ManagedObject>(entityName:))` built from ``fetchRequest``.
///
/// For example:
///
/// ```swift
/// var request = StoreFetchRequest(entityName: "Palette")
/// request.predicate = try .format("hue > 0.5")
/// let warm = FetchedPropertyDescription(name: "warmPalettes", fetchRequest: request)
/// EntityDescription("Palette", fetchedProperties: [warm]) { .attribute("hue", .float) }
/// ```
public struct FetchedPropertyDescription: Sendable, Hashable {
    /// The property's name.
    public var name: String
    /// The request it runs (entity, predicate, sort, limit).
    public var fetchRequest: StoreFetchRequest
    /// Free-form information for the application.
    public var userInfo: [String: String]

    /// Creates a fetched property named `name` that runs `fetchRequest`.
    public init(name: String, fetchRequest: StoreFetchRequest, userInfo: [String: String] = [:]) {
        self.name = name
        self.fetchRequest = fetchRequest
        self.userInfo = userInfo
    }
}
