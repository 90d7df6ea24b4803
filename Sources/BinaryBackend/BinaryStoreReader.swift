import Foundation
import StoreCore

/// Walks the fixed levels of a binary store file (top dictionary, entity tables, columns) over
/// an opened object table; ``BinaryStoreDecoder`` describes its guarantees,
/// `BinaryStoreReader+Rows.swift` makes the objects and `BinaryStoreReader+Cells.swift` decodes
/// the cells.
struct BinaryStoreReader {
    typealias Layout = BinaryStoreLayout
    typealias ColumnType = BinaryStoreLayout.ColumnType
    typealias ArrayReferences = BinaryPropertyListTable.ArrayReferences

    /// An attribute column of an entity table.
    struct AttributeColumn {
        let name: String
        let type: ColumnType
        let cells: ArrayReferences
    }

    /// A relationship column of an entity table.
    struct RelationshipColumn {
        let name: String
        let cells: ArrayReferences
    }

    /// One entity's table: its keys and columns, and how errors name it.
    struct EntityTable {
        let name: String
        let context: String
        let keys: ArrayReferences
        let attributes: [AttributeColumn]
        let relationships: [RelationshipColumn]
    }

    let table: BinaryPropertyListTable
    /// The model the objects are laid out by.
    let model: ManagedObjectModel
    /// What may still be visited: cells, to-many keys and decoded bytes.
    var budget: Int
    let metadataLimits: BinaryPropertyListReader.Limits
    /// Strings decoded so far, by object index.
    var strings: [String?] = []
    /// Values made from strings or data so far, by object index, with the column type that made them.
    var values: [SharedValue?] = []

    /// A value made from a string or data object, and the column type that made it.
    struct SharedValue {
        let type: ColumnType
        let value: StoreValue
    }

    init(table: BinaryPropertyListTable, model: ManagedObjectModel, budget: Int, metadataLimits: BinaryPropertyListReader.Limits) {
        self.table = table
        self.model = model
        self.budget = budget
        self.metadataLimits = metadataLimits
    }

    mutating func file(metadataOnly: Bool = false) throws(StoreError) -> AtomicStoreFile {
        guard (try? table.kind(ofObject: table.topObject)) == .dictionary else {
            throw StoreError(.wrongFormat, "the file is a property list but not a binary store: its top object is not a dictionary")
        }
        let top = try shape("the top dictionary") { () throws(PropertyListError) in try table.dictionaryEntries(ofObject: table.topObject) }
        guard let marker = top[Layout.formatKey], (try? table.string(ofObject: marker)) == Layout.formatMarker else {
            throw StoreError(.wrongFormat, "the file is a property list but not a binary store: it has no \"\(Layout.formatKey)\": \"\(Layout.formatMarker)\" marker")
        }
        let version = try required(top, Layout.versionKey) { (index) throws(PropertyListError) in try table.integer(ofObject: index) }
        guard version <= Layout.version else {
            throw StoreError(.wrongFormat, "the binary store has format version \(version), newer than this version of Stowage reads (\(Layout.version))")
        }
        guard version >= 1 else { throw StoreError(.corrupt, "the binary store has format version \(version), which does not exist") }
        let storeUUID = try required(top, Layout.storeUUIDKey) { (index) throws(PropertyListError) in try table.string(ofObject: index) }
        let nextObjectID = try required(top, Layout.nextObjectIDKey) { (index) throws(PropertyListError) in try table.integer(ofObject: index) }
        let metadataValue = try required(top, Layout.metadataKey) { [table, metadataLimits] (index) throws(PropertyListError) in
            try BinaryPropertyListReader(limits: metadataLimits).read(objectAt: index, of: table)
        }
        guard case .dictionary(let metadata) = metadataValue else {
            throw StoreError(.corrupt, "the binary store's \"\(Layout.metadataKey)\" is not a dictionary")
        }
        let entities = try required(top, Layout.entitiesKey) { (index) throws(PropertyListError) in try table.dictionaryEntries(ofObject: index) }
        var objects: [AtomicStoreObject] = []
        for (name, index) in entities.sorted(by: { $0.key < $1.key }) where !metadataOnly {
            try readEntity(name, at: index, into: &objects)
        }
        var file = AtomicStoreFile(
            metadata: StoreMetadata(propertyList: metadata, storeUUID: storeUUID, storeType: PersistentStoreType.binary.rawValue),
            nextPrimaryKey: nextObjectID, objects: objects)
        file.preservedMetadata = metadata
        return file
    }

    /// Reads one entity's table and appends its objects.
    private mutating func readEntity(_ name: String, at index: Int, into objects: inout [AtomicStoreObject]) throws(StoreError) {
        let context = "entity '\(name)'"
        let entries = try shape(context) { () throws(PropertyListError) in try table.dictionaryEntries(ofObject: index) }
        let keys = try required(entries, Layout.keysKey, in: context) { (index) throws(PropertyListError) in try table.array(ofObject: index) }
        try spend(keys.count, context)
        var attributes: [AttributeColumn] = []
        if let columnsIndex = entries[Layout.attributesKey] {
            let columns = try shape("\(context), attributes") { () throws(PropertyListError) in try table.dictionaryEntries(ofObject: columnsIndex) }
            for (attribute, columnIndex) in columns.sorted(by: { $0.key < $1.key }) {
                let place = "\(context), attribute '\(attribute)'"
                let column = try shape(place) { () throws(PropertyListError) in try table.dictionaryEntries(ofObject: columnIndex) }
                let typeName = try required(column, Layout.typeKey, in: place) { (index) throws(PropertyListError) in try table.string(ofObject: index) }
                guard let type = ColumnType(rawValue: typeName) else {
                    throw StoreError(.corrupt, "the binary store's \(place) has the unknown column type \"\(typeName)\"")
                }
                let cells = try required(column, Layout.valuesKey, in: place) { (index) throws(PropertyListError) in try table.array(ofObject: index) }
                try checkCount(cells, keys, place)
                attributes.append(AttributeColumn(name: attribute, type: type, cells: cells))
            }
        }
        var relationships: [RelationshipColumn] = []
        if let columnsIndex = entries[Layout.relationshipsKey] {
            let columns = try shape("\(context), relationships") { () throws(PropertyListError) in try table.dictionaryEntries(ofObject: columnsIndex) }
            for (relationship, columnIndex) in columns.sorted(by: { $0.key < $1.key }) {
                let place = "\(context), relationship '\(relationship)'"
                let cells = try shape(place) { () throws(PropertyListError) in try table.array(ofObject: columnIndex) }
                try checkCount(cells, keys, place)
                relationships.append(RelationshipColumn(name: relationship, cells: cells))
            }
        }
        objects.reserveCapacity(objects.count + keys.count)
        let entityTable = EntityTable(name: name, context: context, keys: keys, attributes: attributes, relationships: relationships)
        if let entity = model.entitiesByName[name], let layout = ColumnLayout(entityTable, entity: entity) {
            try readRows(of: entityTable, laidOutBy: entity, layout: layout, into: &objects)
        } else {
            try readRowsByName(of: entityTable, into: &objects)
        }
    }

    private mutating func spend(_ count: Int, _ context: String) throws(StoreError) {
        budget -= count
        guard budget >= 0 else {
            throw StoreError(.corrupt, "the binary store's \(context) describes more values than a file of its size can hold (shared references?)")
        }
    }

    private mutating func checkCount(_ cells: ArrayReferences, _ keys: ArrayReferences, _ context: String) throws(StoreError) {
        guard cells.count == keys.count else {
            throw StoreError(.corrupt, "the binary store's \(context) has \(cells.count) values for \(keys.count) objects")
        }
        try spend(cells.count, context)
    }

    /// Runs a step of the file's outer shape, turning a property-list error into a ``/StoreCore/StoreError``.
    private func shape<T>(_ context: String, _ body: () throws(PropertyListError) -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch {
            throw StoreError(.corrupt, "the binary store's \(context) cannot be read: \(error)")
        }
    }

    /// The entry `key` of a dictionary of the outer shape, read by `body`.
    private func required<T>(
        _ entries: [String: Int], _ key: String, in context: String = "top dictionary", _ body: (Int) throws(PropertyListError) -> T
    ) throws(StoreError) -> T {
        guard let index = entries[key] else {
            throw StoreError(.corrupt, "the binary store's \(context) has no \"\(key)\"")
        }
        return try shape("\(context), \"\(key)\"") { () throws(PropertyListError) in try body(index) }
    }
}
