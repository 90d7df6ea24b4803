import Foundation
import StoreCore

/// Writes an ``AtomicStoreFile`` as a binary store file (``BinaryStoreLayout``), streaming the
/// columns into a ``BinaryPropertyListBuilder`` without an intermediate property-list tree.
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
        var groups: [String: [Int]] = [:]
        for (position, object) in file.objects.enumerated() {
            groups[object.entityName, default: []].append(position)
        }
        var entities: [String: Int] = [:]
        for (name, positions) in groups.sorted(by: { $0.key < $1.key }) {
            entities[name] = writer.entityTable(positions.map { file.objects[$0] }, entity: model.entitiesByName[name])
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

    private struct Writer {
        var builder: BinaryPropertyListBuilder
        /// The empty array every `nil` cell refers to.
        private(set) lazy var nilCell: Int = builder.array(EmptyCollection<Int>())

        init(builder: BinaryPropertyListBuilder) {
            self.builder = builder
        }

        /// The table of one entity's objects: keys, attribute columns, relationship columns.
        mutating func entityTable(_ objects: [AtomicStoreObject], entity: EntityDescription?) -> Int {
            let keys = builder.array(objects.map { builder.integer($0.primaryKey) })
            var attributeNames = Set(entity?.attributes.filter { !$0.isTransient }.map(\.name) ?? [])
            var relationshipNames = Set(entity?.relationships.filter { !$0.isTransient }.map(\.name) ?? [])
            for object in objects {
                // Names the model does not list are kept too (the engine refuses them on reading).
                if object.attributes.count > attributeNames.count || object.attributes.keys.contains(where: { !attributeNames.contains($0) }) {
                    attributeNames.formUnion(object.attributes.keys)
                }
                if object.relationships.keys.contains(where: { !relationshipNames.contains($0) }) {
                    relationshipNames.formUnion(object.relationships.keys)
                }
            }
            var attributes: [String: Int] = [:]
            for name in attributeNames.sorted() {
                attributes[name] = attributeColumn(objects.map { $0.attributes[name] ?? .null })
            }
            var relationships: [String: Int] = [:]
            for name in relationshipNames.sorted() {
                let isToOne = entity?.relationshipsByName[name].map { !$0.isToMany } ?? false
                relationships[name] = relationshipColumn(objects.map { $0.relationships[name] ?? [] }, isToOne: isToOne)
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
