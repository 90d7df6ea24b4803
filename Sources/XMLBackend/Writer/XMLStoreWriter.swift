import Foundation
import StoreCore

/// Writes an ``/StoreCore/AtomicStoreFile`` as a Core Data XML store document through libxml2's text writer:
/// the XML declaration, Core Data's DOCTYPE, `<database>` with `<databaseInfo>` (version
/// 134481920, UUID, `nextObjectID`, metadata) and one `<object>` per object. Attributes are
/// written in the model's order and `nil` ones left out; relationships that hold objects are
/// written with their `idrefs` (in order for an ordered to-many), empty ones left out.
///
/// Objects laid out by the model's entities (the engine's) are written straight from their
/// layout, each value read at its property index; objects held by name are laid out first, which
/// refuses names the model does not have.
///
/// For example:
///
/// ```swift
/// let data = try XMLStoreWriter(table: XMLEntityTable(model: model)).write(file)
/// ```
struct XMLStoreWriter {
    /// The `<version>` Core Data writes in `<databaseInfo>`.
    static let formatVersion = "134481920"

    let table: XMLEntityTable

    func write(_ file: AtomicStoreFile) throws(StoreError) -> Data {
        let writer = try XMLTextWriter()
        let pool = XMLNamePool()
        let buffer = XMLTextBuffer(capacity: 4096)
        try writer.startDocument()
        try writer.doctype("<!DOCTYPE database SYSTEM \"\(XMLPrologCheck.coreDataSystemID)\">")
        try writer.startElement(pool["database"])
        try writeInfo(file, writer: writer, pool: pool, buffer: buffer)
        let plans = table.entities.map { EntityPlan($0, pool: pool) }
        let names = ElementNames(pool)
        var hint = 0
        // Through a buffer pointer: each object is read in place (an array's element would be
        // copied, retaining its entity).
        try file.objects.withUnsafeBufferPointer { (objects) throws(StoreError) in
            for position in objects.indices {
                guard let index = table.entityIndex(of: objects[position], hint: hint) else {
                    throw StoreError(
                        .unknownEntity, "object \(objects[position].primaryKey) is a '\(objects[position].entityName)', an entity the model does not have")
                }
                hint = index
                let entity = table.entities[index].description
                if objects[position].isLaidOut(by: entity) {
                    try write(objects[position], plan: plans[index], names: names, writer: writer, buffer: buffer)
                } else {
                    let key = objects[position].primaryKey
                    let laidOut = try objects[position].laidOut(as: entity) { code, property, text in
                        StoreError(code, "object \(key) (\(entity.name)), '\(property)': \(text)")
                    }
                    try write(laidOut, plan: plans[index], names: names, writer: writer, buffer: buffer)
                }
            }
        }
        try writer.fullEndElement()
        return try writer.finish()
    }

    private func writeInfo(_ file: AtomicStoreFile, writer: XMLTextWriter, pool: XMLNamePool, buffer: XMLTextBuffer) throws(StoreError) {
        func simple(_ name: String, _ text: String) throws(StoreError) {
            buffer.removeAll()
            do { try XMLValueEncoding.appendEscaped(text, to: buffer) } catch {
                throw StoreError(.invalidOption, "the store's \(name) holds \(error.characterName), which XML 1.0 cannot hold")
            }
            try writer.startElement(pool[name])
            try writer.raw(buffer.bytes)
            try writer.fullEndElement()
        }
        try writer.startElement(pool["databaseInfo"])
        try simple("version", Self.formatVersion)
        try simple("UUID", file.metadata.storeUUID)
        try simple("nextObjectID", String(file.nextPrimaryKey))
        try writer.startElement(pool["metadata"])
        let metadata = file.metadata.propertyList(storeTypeName: "XML", preserving: file.preservedMetadata)
        try XMLPropertyListWriter(writer: writer, pool: pool, buffer: buffer).writePlist(.dictionary(metadata))
        try writer.fullEndElement()
        try writer.fullEndElement()
    }

    /// The element and attribute names every object uses, looked up in the pool once.
    private struct ElementNames {
        let object, type, id, attribute, name, relationship, destination, idrefs: UnsafePointer<UInt8>

        init(_ pool: XMLNamePool) {
            object = pool["object"]
            type = pool["type"]
            id = pool["id"]
            attribute = pool["attribute"]
            name = pool["name"]
            relationship = pool["relationship"]
            destination = pool["destination"]
            idrefs = pool["idrefs"]
        }
    }

    /// An entity's names as the writer passes them to libxml2 (a class: one reference per object).
    private final class EntityPlan {
        let entity: XMLEntityTable.Entity
        let type: UnsafePointer<UInt8>
        let attributeNames: [UnsafePointer<UInt8>]
        let attributeKinds: [UnsafePointer<UInt8>]
        /// The model's type of each attribute, what values are coerced to.
        let attributeTypes: [AttributeType]
        let relationshipNames: [UnsafePointer<UInt8>]
        let cardinalities: [UnsafePointer<UInt8>]
        let destinations: [UnsafePointer<UInt8>]

        init(_ entity: XMLEntityTable.Entity, pool: XMLNamePool) {
            self.entity = entity
            type = pool[entity.typeName]
            attributeNames = entity.attributes.map { pool[$0.name] }
            attributeKinds = entity.attributes.map { pool[$0.kind.name] }
            attributeTypes = entity.attributes.map(\.description.attributeType)
            relationshipNames = entity.relationships.map { pool[$0.name] }
            cardinalities = entity.relationships.map { pool[$0.cardinality] }
            destinations = entity.destinationTypeNames.map { pool[$0] }
        }
    }

    private func write(
        _ object: AtomicStoreObject, plan: EntityPlan, names: ElementNames, writer: XMLTextWriter, buffer: XMLTextBuffer
    ) throws(StoreError) {
        let entity = plan.entity
        try writer.startElement(names.object)
        try writer.attribute(names.type, plan.type)
        try writeID(object.primaryKey, name: names.id, writer: writer, buffer: buffer)
        for index in entity.attributes.indices {
            let value = object[entity.attributes[index].propertyIndex]
            guard !value.isNull else { continue }
            let type = plan.attributeTypes[index]
            guard let coerced = type.coerce(value) else {
                throw StoreError(.corrupt, "object \(object.primaryKey) (\(entity.description.name)), '\(entity.attributes[index].name)': a \(value.kindName) value where the model has a \(type.name) attribute")
            }
            buffer.removeAll()
            do {
                try XMLValueEncoding.append(coerced, as: entity.attributes[index].kind, to: buffer)
            } catch {
                throw StoreError(
                    .invalidOption,
                    "object \(object.primaryKey) (\(entity.description.name)), '\(entity.attributes[index].name)': the string holds \(error.characterName), a character XML 1.0 cannot hold; the XML store cannot save it (nothing was saved)")
            }
            try writer.startElement(names.attribute)
            try writer.attribute(names.name, plan.attributeNames[index])
            try writer.attribute(names.type, plan.attributeKinds[index])
            try writer.raw(buffer.bytes)
            try writer.fullEndElement()
        }
        for index in entity.relationships.indices {
            buffer.removeAll()
            let propertyIndex = entity.relationships[index].propertyIndex
            if entity.relationships[index].isToMany {
                let keys = object.keys(at: propertyIndex)
                guard !keys.isEmpty else { continue }
                for (position, key) in keys.enumerated() {
                    if position > 0 { buffer.append(UInt8(ascii: " ")) }
                    appendID(key, to: buffer)
                }
            } else {
                guard let key = object.targetKey(at: propertyIndex) else { continue }
                appendID(key, to: buffer)
            }
            try writer.startElement(names.relationship)
            try writer.attribute(names.name, plan.relationshipNames[index])
            try writer.attribute(names.type, plan.cardinalities[index])
            try writer.attribute(names.destination, plan.destinations[index])
            try writer.attribute(names.idrefs, buffer.cString)
            try writer.fullEndElement()
        }
        try writer.endElement()
    }

    /// `z<key>`, the id Core Data gives the object with `key`.
    private func appendID(_ key: Int64, to buffer: XMLTextBuffer) {
        buffer.append(UInt8(ascii: "z"))
        buffer.append(String(key))
    }

    private func writeID(_ key: Int64, name: UnsafePointer<UInt8>, writer: XMLTextWriter, buffer: XMLTextBuffer) throws(StoreError) {
        buffer.removeAll()
        appendID(key, to: buffer)
        try writer.attribute(name, buffer.cString)
    }
}
