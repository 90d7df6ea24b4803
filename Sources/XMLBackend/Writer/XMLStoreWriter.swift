import Foundation
import StoreCore

/// Writes an ``AtomicStoreFile`` as a Core Data XML store document through libxml2's text writer:
/// the XML declaration, Core Data's DOCTYPE, `<database>` with `<databaseInfo>` (version
/// 134481920, UUID, `nextObjectID`, metadata) and one `<object>` per object. Attributes are
/// written in the model's order and `nil` ones left out; relationships that hold objects are
/// written with their `idrefs` (in order for an ordered to-many), empty ones left out.
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
        for object in file.objects {
            guard let index = table.indexByName[object.entityName] else {
                throw StoreError(.unknownEntity, "object \(object.primaryKey) is a '\(object.entityName)', an entity the model does not have")
            }
            try write(object, plan: plans[index], writer: writer, pool: pool, buffer: buffer)
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

    /// An entity's names as the writer passes them to libxml2.
    private struct EntityPlan {
        let entity: XMLEntityTable.Entity
        let type: UnsafePointer<UInt8>
        let attributeNames: [UnsafePointer<UInt8>]
        let attributeKinds: [UnsafePointer<UInt8>]
        let relationshipNames: [UnsafePointer<UInt8>]
        let cardinalities: [UnsafePointer<UInt8>]
        let destinations: [UnsafePointer<UInt8>]

        init(_ entity: XMLEntityTable.Entity, pool: XMLNamePool) {
            self.entity = entity
            type = pool[entity.typeName]
            attributeNames = entity.attributes.map { pool[$0.name] }
            attributeKinds = entity.attributes.map { pool[$0.kind.name] }
            relationshipNames = entity.relationships.map { pool[$0.name] }
            cardinalities = entity.relationships.map { pool[$0.cardinality] }
            destinations = entity.destinationTypeNames.map { pool[$0] }
        }
    }

    private func write(
        _ object: AtomicStoreObject, plan: EntityPlan, writer: XMLTextWriter, pool: XMLNamePool, buffer: XMLTextBuffer
    ) throws(StoreError) {
        let entity = plan.entity
        try writer.startElement(pool["object"])
        try writer.attribute(pool["type"], plan.type)
        try writeID(object.primaryKey, name: pool["id"], writer: writer, buffer: buffer)
        var written = 0
        for (index, attribute) in entity.attributes.enumerated() {
            guard let value = object.attributes[attribute.name], !value.isNull else { continue }
            written += 1
            guard let coerced = attribute.description.attributeType.coerce(value) else {
                throw StoreError(.corrupt, "object \(object.primaryKey) (\(entity.description.name)), '\(attribute.name)': a \(value.kindName) value where the model has a \(attribute.description.attributeType.name) attribute")
            }
            buffer.removeAll()
            do {
                try XMLValueEncoding.append(coerced, as: attribute.kind, to: buffer)
            } catch {
                throw StoreError(
                    .invalidOption,
                    "object \(object.primaryKey) (\(entity.description.name)), '\(attribute.name)': the string holds \(error.characterName), a character XML 1.0 cannot hold; the XML store cannot save it (nothing was saved)")
            }
            try writer.startElement(pool["attribute"])
            try writer.attribute(pool["name"], plan.attributeNames[index])
            try writer.attribute(pool["type"], plan.attributeKinds[index])
            try writer.raw(buffer.bytes)
            try writer.fullEndElement()
        }
        if written != object.attributes.count, written != object.attributes.count(where: { !$0.value.isNull }) {
            let unknown = object.attributes.keys.first { name in !entity.attributes.contains { $0.name == name } } ?? ""
            throw StoreError(.unknownProperty, "object \(object.primaryKey) (\(entity.description.name)) has a value for '\(unknown)', which the model's \(entity.description.name) does not have as a stored attribute")
        }
        for (index, relationship) in entity.relationships.enumerated() {
            guard let keys = object.relationships[relationship.name], !keys.isEmpty else { continue }
            buffer.removeAll()
            for (position, key) in keys.enumerated() {
                if position > 0 { buffer.append(UInt8(ascii: " ")) }
                buffer.append(UInt8(ascii: "z"))
                buffer.append(String(key))
            }
            try writer.startElement(pool["relationship"])
            try writer.attribute(pool["name"], plan.relationshipNames[index])
            try writer.attribute(pool["type"], plan.cardinalities[index])
            try writer.attribute(pool["destination"], plan.destinations[index])
            try writer.attribute(pool["idrefs"], buffer.cString)
            try writer.fullEndElement()
        }
        try writer.endElement()
    }

    private func writeID(_ key: Int64, name: UnsafePointer<UInt8>, writer: XMLTextWriter, buffer: XMLTextBuffer) throws(StoreError) {
        buffer.removeAll()
        buffer.append(UInt8(ascii: "z"))
        buffer.append(String(key))
        try writer.attribute(name, buffer.cString)
    }
}
