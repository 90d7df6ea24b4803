import Foundation
import StoreCore

/// The shape of a binary store file (format version 1): one `bplist00` binary property list
/// whose top object is a dictionary, with the objects stored entity by entity in columns.
///
/// ```
/// { "format": "Stowage.BinaryStore", "version": 1,
///   "storeUUID": "…", "nextObjectID": 8,
///   "metadata": { "NSStoreType": "Binary", "NSStoreUUID": "…", "NSStoreModelVersionHashes": {…}, … },
///   "entities": {
///     "Post": { "keys": [1, 4],
///               "attributes": { "title": { "type": "string", "values": ["Hello", []] } },
///               "relationships": { "author": [3, []], "tags": [[5, 6], []] } } } }
/// ```
///
/// - `keys` holds the primary keys of the entity's objects (not its sub-entities'); every column
///   holds one cell per key, in the same order.
/// - An attribute column is a dictionary of a `type` (``ColumnType``) and its `values`. A cell is
///   the value as the property-list type ``ColumnType`` names, or an **empty array for `nil`**: no
///   attribute value is ever an array, so the empty array is never a value.
/// - A `mixed` column (values of several kinds, which the engine never writes for one attribute)
///   holds each value as a two-element array: its type name and the value.
/// - A relationship cell is an integer (the target's key, for a to-one), an array of keys (a
///   to-many, in order for an ordered one), or an empty array for none.
/// - `metadata` is the store metadata dictionary Core Data keeps in every store
///   (see `StoreMetadata.propertyList(storeTypeName:preserving:)`).
enum BinaryStoreLayout {
    static let formatKey = "format"
    static let formatMarker = "Stowage.BinaryStore"
    static let versionKey = "version"
    /// The version this code writes and the newest it reads.
    static let version: Int64 = 1
    static let storeUUIDKey = "storeUUID"
    static let nextObjectIDKey = "nextObjectID"
    static let metadataKey = "metadata"
    static let entitiesKey = "entities"
    static let keysKey = "keys"
    static let attributesKey = "attributes"
    static let relationshipsKey = "relationships"
    static let typeKey = "type"
    static let valuesKey = "values"
    /// `NSStoreType` in the metadata, as Core Data names its binary store type.
    static let storeTypeName = "Binary"

    /// How the values of an attribute column are stored.
    enum ColumnType: String, CaseIterable {
        /// A property-list integer.
        case integer
        /// An 8-byte real.
        case double
        /// A 4-byte real, so the value stays a `Float`.
        case float
        /// A string of the exact digits (`Decimal.description`), `NaN` for not-a-number.
        case decimal
        case string
        case boolean
        /// A property-list date: seconds since 2001-01-01 as a `Double`.
        case date
        case data
        /// 16 bytes of data, the UUID's bytes in order.
        case uuid
        /// A string, the URL's `absoluteString`.
        case uri
        /// A string, the object ID's `x-coredata://` URI.
        case objectID
        /// Each cell a `[type, value]` array.
        case mixed

        /// The column type of one value (`nil` for ``/StoreCore/StoreValue/null``).
        init?(of value: StoreValue) {
            switch value {
            case .null: return nil
            case .integer: self = .integer
            case .double: self = .double
            case .float: self = .float
            case .decimal: self = .decimal
            case .string: self = .string
            case .boolean: self = .boolean
            case .date: self = .date
            case .data: self = .data
            case .uuid: self = .uuid
            case .uri: self = .uri
            case .objectID: self = .objectID
            }
        }
    }
}
