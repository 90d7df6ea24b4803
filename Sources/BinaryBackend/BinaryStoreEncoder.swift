import Foundation
import StoreCore

/// Writes an ``/StoreCore/AtomicStoreFile`` as a binary store file (``BinaryStoreLayout``), streaming the
/// columns into a ``BinaryPropertyListBuilder`` without an intermediate property-list tree.
/// Objects laid out by the model's entities (the engine's) are written column by column from
/// their layout; a table with objects the layout cannot hold is written by name.
///
/// For example:
///
/// ```swift
/// let data = BinaryStoreEncoder(model: model).encode(file)
/// ```
struct BinaryStoreEncoder {
    private typealias Layout = BinaryStoreLayout
    private typealias ColumnType = BinaryStoreLayout.ColumnType

    let model: ManagedObjectModel

    /// - Complexity: O(*n*) in the number of values, plus sorting entity and property names.
    func encode(_ file: AtomicStoreFile) -> Data {
        var writer = Writer(builder: BinaryPropertyListBuilder(capacity: 32 + file.objects.count * 48))
        var entities: [String: Int] = [:]
        for group in Self.groups(of: file.objects).sorted(by: { $0.name < $1.name }) {
            let entity = model.entitiesByName[group.name]
            if let entity, file.objects.withUnsafeBufferPointer({ objects in group.positions.allSatisfy { objects[$0].isLaidOut(by: entity) } }) {
                // The engine's files: read in place, no object copied.
                entities[group.name] = writer.entityTable(laidOut: file.objects, at: group.positions, entity: entity)
                continue
            }
            let objects = group.positions.map { file.objects[$0] }
            if let entity, let laidOut = Self.laidOut(objects, by: entity) {
                entities[group.name] = writer.entityTable(laidOut: laidOut, at: Array(laidOut.indices), entity: entity)
            } else {
                entities[group.name] = writer.entityTable(byName: objects, entity: entity)
            }
        }
        let metadata = file.metadata.propertyList(storeTypeName: Layout.storeTypeName, preserving: file.preservedMetadata)
        var top: [String: Int] = [:]
        top[Layout.formatKey] = writer.builder.string(Layout.formatMarker)
        top[Layout.versionKey] = writer.builder.integer(Layout.version)
        top[Layout.storeUUIDKey] = writer.builder.string(file.metadata.storeUUID)
        top[Layout.nextObjectIDKey] = writer.builder.integer(file.nextPrimaryKey)
        top[Layout.metadataKey] = writer.builder.value(.dictionary(metadata))
        top[Layout.entitiesKey] = writer.builder.dictionary(entities)
        let topIndex = writer.builder.dictionary(top)
        return writer.builder.finish(top: topIndex)
    }

    /// The objects of each entity name, by position: laid-out objects grouped by their entity
    /// (no string hashed per object), the rest by name, into the same group as their entity's.
    private static func groups(of objects: [AtomicStoreObject]) -> [(name: String, positions: [Int])] {
        objects.withUnsafeBufferPointer { groups(of: $0) }
    }

    private static func groups(of objects: UnsafeBufferPointer<AtomicStoreObject>) -> [(name: String, positions: [Int])] {
        var groups: [(name: String, positions: [Int])] = []
        var byName: [String: Int] = [:]
        var byEntity: [ObjectIdentifier: Int] = [:]
        var last: (entity: ObjectIdentifier, group: Int)?
        for position in objects.indices {
            let group: Int
            let identity = objects[position].layoutIdentity
            if let identity, let last, last.entity == identity {
                group = last.group
            } else if let identity, let known = byEntity[identity] {
                group = known
                last = (identity, known)
            } else {
                let name = objects[position].entityName
                if let known = byName[name] {
                    group = known
                } else {
                    group = groups.count
                    byName[name] = group
                    groups.append((name, []))
                }
                if let identity {
                    byEntity[identity] = group
                    last = (identity, group)
                }
            }
            groups[group].positions.append(position)
        }
        return groups
    }

    /// The objects laid out by `entity`, or `nil` if one has something the layout cannot hold
    /// (it is then written by name, and the engine refuses the file when reading it).
    private static func laidOut(_ objects: [AtomicStoreObject], by entity: EntityDescription) -> [AtomicStoreObject]? {
        var result: [AtomicStoreObject] = []
        result.reserveCapacity(objects.count)
        for object in objects {
            if object.isLaidOut(by: entity) {
                result.append(object)
            } else {
                guard let laidOut = try? object.laidOut(as: entity, problem: { code, _, text in StoreError(code, text) }) else { return nil }
                result.append(laidOut)
            }
        }
        return result
    }

    private struct Writer {
        var builder: BinaryPropertyListBuilder
        /// The empty array every `nil` cell refers to.
        private(set) lazy var nilCell: Int = builder.array(EmptyCollection<Int>())

        init(builder: BinaryPropertyListBuilder) {
            self.builder = builder
        }

        /// The table of one entity's objects (those of `objects` at `positions`), laid out by it:
        /// keys, then a column per stored attribute and per relationship (in name order), each
        /// cell read at its property index.
        mutating func entityTable(laidOut objects: [AtomicStoreObject], at positions: [Int], entity: EntityDescription) -> Int {
            // Through a buffer pointer: each object is read in place (an array's subscript would
            // copy it, retaining its entity).
            objects.withUnsafeBufferPointer { objects in
                let keys = builder.array(positions.map { builder.integer(objects[$0].primaryKey) })
                let stored = entity.properties.enumerated().filter { !$1.isTransient }.sorted { $0.element.name < $1.element.name }
                var attributes: [String: Int] = [:]
                var relationships: [String: Int] = [:]
                for (index, property) in stored where entity.layout.kinds[index] == .attribute {
                    attributes[property.name] = attributeColumn(positions.map { objects[$0][index] })
                }
                for (index, property) in stored {
                    switch entity.layout.kinds[index] {
                    case .toOne:
                        relationships[property.name] = builder.array(positions.map { position in
                            objects[position].targetKey(at: index).map { builder.integer($0) } ?? nilCell
                        })
                    case .toMany:
                        relationships[property.name] = relationshipColumn(positions.map { objects[$0].keys(at: index) }, isToOne: false)
                    case .attribute, .transientAttribute:
                        continue
                    }
                }
                return builder.dictionary([
                    Layout.keysKey: keys,
                    Layout.attributesKey: builder.dictionary(attributes),
                    Layout.relationshipsKey: builder.dictionary(relationships),
                ])
            }
        }

        /// The table of one entity's objects by name: the entity's stored properties and any
        /// other name the objects give (kept, so the engine refuses them when reading).
        mutating func entityTable(byName objects: [AtomicStoreObject], entity: EntityDescription?) -> Int {
            let keys = builder.array(objects.map { builder.integer($0.primaryKey) })
            var attributeNames = Set(entity?.attributes.filter { !$0.isTransient }.map(\.name) ?? [])
            var relationshipNames = Set(entity?.relationships.filter { !$0.isTransient }.map(\.name) ?? [])
            let named = objects.map { (attributes: $0.attributes, relationships: $0.relationships) }
            for object in named {
                attributeNames.formUnion(object.attributes.keys)
                relationshipNames.formUnion(object.relationships.keys)
            }
            var attributes: [String: Int] = [:]
            for name in attributeNames.sorted() {
                attributes[name] = attributeColumn(named.map { $0.attributes[name] ?? .null })
            }
            var relationships: [String: Int] = [:]
            for name in relationshipNames.sorted() {
                let isToOne = entity?.relationshipsByName[name].map { !$0.isToMany } ?? false
                relationships[name] = relationshipColumn(named.map { $0.relationships[name] ?? [] }, isToOne: isToOne)
            }
            return builder.dictionary([
                Layout.keysKey: keys,
                Layout.attributesKey: builder.dictionary(attributes),
                Layout.relationshipsKey: builder.dictionary(relationships),
            ])
        }

        private mutating func attributeColumn(_ cells: [StoreValue]) -> Int {
            var type: ColumnType?
            for cell in cells {
                guard let kind = ColumnType(of: cell) else { continue }
                if type == nil {
                    type = kind
                } else if type != kind {
                    type = .mixed
                    break
                }
            }
            let columnType = type ?? .string
            let values = builder.array(cells.map { cell(for: $0, type: columnType) })
            return builder.dictionary([Layout.typeKey: builder.string(columnType.rawValue), Layout.valuesKey: values])
        }

        private mutating func cell(for value: StoreValue, type: ColumnType) -> Int {
            if type == .mixed, let kind = ColumnType(of: value) {
                return builder.array([builder.string(kind.rawValue), scalar(value)])
            }
            return scalar(value)
        }

        /// A value as the property-list type its column type names.
        private mutating func scalar(_ value: StoreValue) -> Int {
            switch value {
            case .null: return nilCell
            case .integer(let number): return builder.integer(number)
            case .double(let number): return builder.real(number)
            case .float(let number): return builder.float(number)
            case .decimal(let number): return builder.string(number.isNaN ? "NaN" : number.description)
            case .string(let text): return builder.string(text)
            case .boolean(let flag): return builder.boolean(flag)
            case .date(let date): return builder.date(date)
            case .data(let data): return builder.data(data)
            case .uuid(let uuid): return withUnsafeBytes(of: uuid.uuid) { builder.data($0) }
            case .uri(let url): return builder.string(url.absoluteString)
            case .objectID(let id): return builder.string(id.uriRepresentation.absoluteString)
            }
        }

        private mutating func relationshipColumn(_ cells: [[Int64]], isToOne: Bool) -> Int {
            builder.array(cells.map { targets in
                if targets.isEmpty { return nilCell }
                if isToOne, targets.count == 1 { return builder.integer(targets[0]) }
                return builder.array(targets.map { builder.integer($0) })
            })
        }
    }
}
