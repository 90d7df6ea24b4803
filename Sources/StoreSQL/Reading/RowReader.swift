import Foundation
import StoreCore

/// Turns rows into snapshots and keys into object IDs for one store (each SQL store adds the
/// reading of its own rows).
///
/// For each fetched entity it knows the select list — `Z_PK, Z_ENT, Z_OPT`, then the columns
/// of the entity and (when sub-entities are included) of its descendants, then the entity
/// numbers of to-one destinations that have sub-entities — and, per entity number, which
/// positions hold which property. Layouts are computed once, when the store opens.
///
/// For example:
///
/// ```swift
/// let layout = rows.layout(for: "Post", includesSubentities: true)
/// let query = try compiler.selectObjects(request, columns: layout.selectList)
/// // for each row, the store's own reader: rows.snapshot(from: statement, layout: layout)
/// ```
package final class RowReader: Sendable {
    package struct Layout: Sendable {
        package let selectList: [String]
        /// ``selectList`` joined with commas, for SQL text.
        package let columns: String
        /// Per entity number: the properties read from the row, in select-list positions.
        package let fields: EntityNumberTable<Fields>

        init(selectList: [String], fields: [Int64: Fields]) {
            self.selectList = selectList
            self.columns = selectList.joined(separator: ", ")
            self.fields = EntityNumberTable(fields)
        }
    }

    /// Where the row of one entity holds its properties (a class: a row looks it up with one
    /// retain, not one per array).
    package final class Fields: Sendable {
        /// The entity of the rows (`nil` when the model has none of that name: its rows are
        /// skipped), and an ID of it whose entity-and-store part a row's ID shares: found with
        /// the fields, in the one lookup a row makes.
        package let entity: EntityDescription?
        let prototype: ManagedObjectID?
        /// Every stored attribute, read by the driver in one call per row.
        package let attributes: [AttributeColumn]
        /// The property indexes of the attributes that allow external storage, whose values
        /// are read through the store's external storage after the row.
        package let externalAttributes: [Int]
        /// The to-one relationships' foreign keys.
        package let toOnes: [ToOne]

        init(entity: EntityDescription?, prototype: ManagedObjectID?, attributes: [AttributeColumn], externalAttributes: [Int], toOnes: [ToOne]) {
            self.entity = entity
            self.prototype = prototype
            self.attributes = attributes
            self.externalAttributes = externalAttributes
            self.toOnes = toOnes
        }
    }

    /// A foreign key: where the row holds it, where the snapshot holds the destination's ID
    /// (the property's index), and the destination's entity number; `entityPosition` is where
    /// the destination's `Z_ENT` was selected (nil when the destination has no sub-entities).
    package struct ToOne: Sendable {
        package let position: Int
        package let propertyIndex: Int
        package let destinationNumber: Int64
        package let entityPosition: Int?
    }

    package let schema: SQLSchema
    package let storeIdentifier: String
    /// One ID per entity number, whose entity-and-store part new IDs share.
    private let prototypes: EntityNumberTable<ManagedObjectID>
    private let layouts: [String: Layout]
    private let exactLayouts: [String: Layout]

    package init(schema: SQLSchema, model: ManagedObjectModel, storeIdentifier: String) {
        self.schema = schema
        self.storeIdentifier = storeIdentifier
        var prototypes: [Int64: ManagedObjectID] = [:]
        for (number, name) in schema.entityNames {
            prototypes[number] = ManagedObjectID(entityName: name, storeIdentifier: storeIdentifier, primaryKey: 1)
        }
        self.prototypes = EntityNumberTable(prototypes)
        var entities: [Int64: EntityDescription] = [:]
        for (number, name) in schema.entityNames { entities[number] = model.entitiesByName[name] }
        var layouts: [String: Layout] = [:], exact: [String: Layout] = [:]
        for (name, table) in schema.tables {
            layouts[name] = Self.makeLayout(numbers: table.entityNumbers, schema: schema, entities: entities, prototypes: prototypes)
            exact[name] = Self.makeLayout(numbers: [table.number], schema: schema, entities: entities, prototypes: prototypes)
        }
        self.layouts = layouts
        self.exactLayouts = exact
    }

    private static func makeLayout(
        numbers: [Int64], schema: SQLSchema, entities: [Int64: EntityDescription], prototypes: [Int64: ManagedObjectID]
    ) -> Layout {
        var selectList = ["t0.Z_PK", "t0.Z_ENT", "t0.Z_OPT"]
        var positions: [String: Int] = [:]
        var entityPositions: [String: Int] = [:]
        var fields: [Int64: Fields] = [:]
        for number in numbers {
            guard let name = schema.entityNames[number], let table = schema.tables[name] else { continue }
            var attributes: [AttributeColumn] = [], externalAttributes: [Int] = [], toOnes: [ToOne] = []
            for column in table.columns {
                let position: Int
                if let known = positions[column.name] {
                    position = known
                } else {
                    position = selectList.count
                    positions[column.name] = position
                    selectList.append("t0.\(column.name)")
                }
                switch column.kind {
                case .attribute(let type, let external):
                    attributes.append(AttributeColumn(position: position, propertyIndex: column.propertyIndex, type: type))
                    if external { externalAttributes.append(column.propertyIndex) }
                case .toOne(let destination, _):
                    guard let target = schema.tables[destination] else { continue }
                    var entityPosition: Int?
                    if target.entityNumbers.count > 1 {
                        if let known = entityPositions[column.name] {
                            entityPosition = known
                        } else {
                            entityPosition = selectList.count
                            entityPositions[column.name] = selectList.count
                            selectList.append("(SELECT e.Z_ENT FROM \(target.table) e WHERE e.Z_PK = t0.\(column.name))")
                        }
                    }
                    toOnes.append(ToOne(position: position, propertyIndex: column.propertyIndex, destinationNumber: target.number, entityPosition: entityPosition))
                }
            }
            fields[number] = Fields(
                entity: entities[number], prototype: prototypes[number],
                attributes: attributes, externalAttributes: externalAttributes, toOnes: toOnes)
        }
        return Layout(selectList: selectList, fields: fields)
    }

    /// The layout for fetching `entityName` (with or without its sub-entities).
    package func layout(for entityName: String, includesSubentities: Bool = true) throws -> Layout {
        guard let layout = (includesSubentities ? layouts : exactLayouts)[entityName] else {
            throw ModelError(.unknownEntity, entity: entityName, "the model has no entity named \(entityName)")
        }
        return layout
    }

    /// The ID of row `key` of entity `number`.
    package func objectID(entityNumber number: Int64, key: Int64) -> ManagedObjectID? {
        prototypes[number].map { ManagedObjectID(primaryKey: key, sameEntityAndStoreAs: $0) }
    }

    package func objectID(entityName: String, key: Int64) -> ManagedObjectID? {
        schema.tables[entityName].flatMap { objectID(entityNumber: $0.number, key: key) }
    }
}
