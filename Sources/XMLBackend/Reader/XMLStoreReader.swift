import Foundation
import StoreCore

/// Reads a Core Data XML store document into an ``/StoreCore/AtomicStoreFile``, in one streaming pass:
/// `<database>`, its `<databaseInfo>` (UUID, `nextObjectID`, metadata property list) and one
/// `<object>` per object with its `<attribute>` and `<relationship>` elements.
///
/// Element and attribute names are compared by address (libxml2 interns them), property names
/// by bytes, and values are parsed from the bytes straight into each object's layout, at the
/// property's index (``/StoreCore/AtomicStoreObject``); the only `String`s made are string values. Objects
/// with ids that are not `z<n>` get fresh keys once every object has been read, and references to
/// them are then resolved.
///
/// For example:
///
/// ```swift
/// let file = try bytes.withUnsafeBytes { try XMLStoreReader(document: $0, model: model).read() }
/// ```
struct XMLStoreReader {
    private let cursor: XMLNodeCursor
    private let table: XMLEntityTable
    private let names: Names
    private let decoding = XMLValueDecoding()

    private struct Names {
        let database, databaseInfo, version, uuid, nextObjectID, metadata, plist: UnsafePointer<UInt8>?
        let object, attribute, relationship, name, type, id, idrefs: UnsafePointer<UInt8>?
        init(_ reader: XMLTextReader) {
            database = reader.interned("database")
            databaseInfo = reader.interned("databaseInfo")
            version = reader.interned("version")
            uuid = reader.interned("UUID")
            nextObjectID = reader.interned("nextObjectID")
            metadata = reader.interned("metadata")
            plist = reader.interned("plist")
            object = reader.interned("object")
            attribute = reader.interned("attribute")
            relationship = reader.interned("relationship")
            name = reader.interned("name")
            type = reader.interned("type")
            id = reader.interned("id")
            idrefs = reader.interned("idrefs")
        }
    }

    /// A reference to an object whose id is not `z<n>`, resolved once every object is read.
    private struct PendingReference {
        let object: Int
        let relationshipName: String
        let propertyIndex: Int
        let position: Int
        let id: String
    }

    /// What the pass collects besides the objects.
    private struct State {
        var objects: [AtomicStoreObject] = []
        var storeUUID: String?
        var nextObjectID: Int64 = 1
        var metadata: [String: PropertyListValue] = [:]
        /// Objects with ids that are not `z<n>`: their index and id.
        var unkeyedObjects: [(index: Int, id: String)] = []
        var pendingReferences: [PendingReference] = []
        var highestObjectKey: Int64 = 0
        /// The highest `z<n>` reference and the line it is on.
        var highestReference: (key: Int64, line: Int)?
        /// The entity of the previous object, tried first for the next.
        var entityHint = 0
        /// The keys of the relationship being read (reused: a to-one's key needs no array of its own).
        var keys: [Int64] = []
    }

    init(document: UnsafeRawBufferPointer, table: XMLEntityTable) throws(StoreError) {
        cursor = try XMLNodeCursor(document: document)
        self.table = table
        names = Names(cursor.reader)
    }

    /// Reads the document; with `metadataOnly`, stops after `<databaseInfo>` (or at the first
    /// object) and returns a file with no objects.
    func read(metadataOnly: Bool = false) throws(StoreError) -> AtomicStoreFile {
        guard case .start(let rootName, let isRootEmpty)? = try cursor.next() else {
            throw StoreError(.wrongFormat, "not an XML store: the document has no root element")
        }
        guard rootName == names.database else {
            throw StoreError(.wrongFormat, "not a Core Data XML store: the root element is not <database>")
        }
        var state = State()
        if !isRootEmpty {
            while let event = try cursor.next() {
                guard case .start(let name, let isEmpty) = event else { break }
                if name == names.object {
                    if metadataOnly { return file(from: state) }
                    try readObject(isEmpty: isEmpty, into: &state)
                } else if name == names.databaseInfo {
                    try readDatabaseInfo(isEmpty: isEmpty, into: &state)
                    if metadataOnly { return file(from: state) }
                } else {
                    throw cursor.error(.corrupt, "an element other than <databaseInfo> or <object> in <database>")
                }
            }
        }
        while try cursor.next() != nil {}  // libxml2 checks that nothing but comments follows
        try resolveUnkeyedObjects(&state)
        return file(from: state)
    }

    private func file(from state: State) -> AtomicStoreFile {
        var file = AtomicStoreFile(
            metadata: StoreMetadata(
                propertyList: state.metadata, storeUUID: state.storeUUID ?? UUID().uuidString, storeType: PersistentStoreType.xml.rawValue),
            nextPrimaryKey: max(state.nextObjectID, state.highestObjectKey + 1),
            objects: state.objects)
        file.preservedMetadata = state.metadata
        return file
    }

    // MARK: databaseInfo

    private func readDatabaseInfo(isEmpty: Bool, into state: inout State) throws(StoreError) {
        guard !isEmpty else { return }
        while let event = try cursor.next() {
            guard case .start(let name, let isEmpty) = event else { return }
            if name == names.uuid {
                state.storeUUID = String(decoding: XMLValueDecoding.trimmed(try cursor.text(isEmpty: isEmpty)), as: UTF8.self)
            } else if name == names.nextObjectID {
                guard let next = XMLValueDecoding.integer(try cursor.text(isEmpty: isEmpty)) else {
                    throw cursor.error(.corrupt, "<nextObjectID> is not an integer")
                }
                state.nextObjectID = next
            } else if name == names.version {
                guard XMLValueDecoding.integer(try cursor.text(isEmpty: isEmpty)) != nil else {
                    throw cursor.error(.corrupt, "<version> is not an integer")
                }
            } else if name == names.metadata {
                try readMetadata(isEmpty: isEmpty, into: &state)
            } else {
                try cursor.skip(isEmpty: isEmpty)  // newer Core Data versions may add entries
            }
        }
        throw StoreError(.truncated, "the file ends inside <databaseInfo>")
    }

    private func readMetadata(isEmpty: Bool, into state: inout State) throws(StoreError) {
        guard !isEmpty else { return }
        while let event = try cursor.next() {
            guard case .start(let name, let isEmpty) = event else { return }
            guard name == names.plist else { throw cursor.error(.corrupt, "<metadata> holds something other than a <plist>") }
            guard case .dictionary(let entries) = try XMLPropertyListReader(cursor: cursor).readPlist(isEmpty: isEmpty) else {
                throw cursor.error(.corrupt, "the store metadata is not a dictionary")
            }
            state.metadata = entries
        }
        throw StoreError(.truncated, "the file ends inside <metadata>")
    }

    // MARK: Objects

    private func readObject(isEmpty: Bool, into state: inout State) throws(StoreError) {
        var entityIndex: Int?
        var key: Int64?
        var unkeyedID: String?
        var typeText: String?
        try cursor.forEachAttribute { name, value throws(StoreError) in
            if name == names.type {
                entityIndex = table.entityIndex(named: value, hint: state.entityHint)
                if entityIndex == nil { typeText = String(decoding: value, as: UTF8.self) }
            } else if name == names.id {
                key = XMLObjectIdentifier.primaryKey(inID: value)
                if key == nil { unkeyedID = String(decoding: value, as: UTF8.self) }
            }
        }
        guard let entityIndex else {
            if let typeText { throw cursor.error(.unknownEntity, "an object of type '\(typeText)', an entity the model does not have") }
            throw cursor.error(.corrupt, "an <object> without a type")
        }
        guard key != nil || unkeyedID != nil else { throw cursor.error(.corrupt, "an <object> without an id") }
        let entity = table.entities[entityIndex]
        state.entityHint = entityIndex
        let index = state.objects.count
        if let key {
            state.highestObjectKey = max(state.highestObjectKey, key)
        } else if let unkeyedID {
            state.unkeyedObjects.append((index, unkeyedID))
        }
        var object = AtomicStoreObject(entity: entity.description, primaryKey: key ?? 0)
        if !isEmpty {
            var attributeHint = 0
            while let event = try cursor.next() {
                guard case .start(let name, let isEmpty) = event else { break }
                if name == names.attribute {
                    attributeHint = try readAttribute(of: entity, isEmpty: isEmpty, hint: attributeHint, into: &object) + 1
                } else if name == names.relationship {
                    try readRelationship(of: entity, objectIndex: index, isEmpty: isEmpty, into: &object, state: &state)
                } else {
                    throw cursor.error(.corrupt, "an element other than <attribute> or <relationship> in an <object>")
                }
            }
        }
        state.objects.append(consume object)  // moved, not copied (a copy retains the entity)
    }

    /// Reads one `<attribute>` into `object` and returns the attribute's index in the entity.
    private func readAttribute(
        of entity: XMLEntityTable.Entity, isEmpty: Bool, hint: Int, into object: inout AtomicStoreObject
    ) throws(StoreError) -> Int {
        var attributeIndex: Int?
        var fileKind: XMLAttributeKind?
        var unknownName: String?
        var unknownKind: String?
        try cursor.forEachAttribute { name, value throws(StoreError) in
            if name == names.name {
                attributeIndex = entity.attributeIndex(named: value, hint: hint)
                if attributeIndex == nil { unknownName = String(decoding: value, as: UTF8.self) }
            } else if name == names.type {
                // Usually the model's own kind (name comes first): one comparison.
                if let attributeIndex, XMLBytes.equal(entity.attributes[attributeIndex].kindBytes, value) {
                    fileKind = entity.attributes[attributeIndex].kind
                } else {
                    fileKind = XMLAttributeKind(name: value)
                    if fileKind == nil { unknownKind = String(decoding: value, as: UTF8.self) }
                }
            }
        }
        guard let attributeIndex else {
            if let unknownName {
                throw cursor.error(.unknownProperty, "the model's \(entity.description.name) has no stored attribute '\(unknownName)'")
            }
            throw cursor.error(.corrupt, "an <attribute> without a name")
        }
        // The fields needed, not a copy of the whole entry (its arrays and names).
        let kind = entity.attributes[attributeIndex].kind
        if let unknownKind {
            throw cursor.error(.corrupt, "'\(entity.attributes[attributeIndex].name)' has the type '\(unknownKind)', which an XML store does not have")
        }
        if let fileKind, !fileKind.canBeRead(as: kind) {
            let attribute = entity.attributes[attributeIndex]
            throw cursor.error(.corrupt, "'\(attribute.name)' is written as \(fileKind.name) where the model has a \(attribute.description.attributeType.name) attribute")
        }
        let text = try cursor.text(isEmpty: isEmpty)
        guard let value = decoding.value(of: kind, from: text) else {
            let shown = String(decoding: text.prefix(80), as: UTF8.self)
            throw cursor.error(
                .corrupt, "'\(entity.attributes[attributeIndex].name)' of a \(entity.description.name): \"\(shown)\" is not a value of type \(kind.name)")
        }
        object[entity.attributes[attributeIndex].propertyIndex] = value
        return attributeIndex
    }

    private func readRelationship(
        of entity: XMLEntityTable.Entity, objectIndex: Int, isEmpty: Bool, into object: inout AtomicStoreObject, state: inout State
    ) throws(StoreError) {
        var relationshipIndex: Int?
        var unknownName: String?
        state.keys.removeAll(keepingCapacity: true)
        var pending: [(position: Int, id: String)] = []
        let line = cursor.reader.line
        try cursor.forEachAttribute { name, value throws(StoreError) in
            if name == names.name {
                relationshipIndex = entity.relationshipIndex(named: value)
                if relationshipIndex == nil { unknownName = String(decoding: value, as: UTF8.self) }
            } else if name == names.idrefs {
                var start = 0
                while start < value.count {
                    while start < value.count, XMLValueDecoding.isSpace(value[start]) { start += 1 }
                    var end = start
                    while end < value.count, !XMLValueDecoding.isSpace(value[end]) { end += 1 }
                    guard end > start else { break }
                    let id = UnsafeBufferPointer(rebasing: value[start..<end])
                    if let key = XMLObjectIdentifier.primaryKey(inID: id) {
                        state.keys.append(key)
                        if key > state.highestReference?.key ?? 0 { state.highestReference = (key, line) }
                    } else {
                        pending.append((state.keys.count, String(decoding: id, as: UTF8.self)))
                        state.keys.append(0)
                    }
                    start = end
                }
            }
        }
        guard let relationshipIndex else {
            if let unknownName {
                throw cursor.error(.unknownProperty, "the model's \(entity.description.name) has no relationship '\(unknownName)'")
            }
            throw cursor.error(.corrupt, "a <relationship> without a name")
        }
        try cursor.skip(isEmpty: isEmpty)
        // The fields needed, not a copy of the whole entry.
        let propertyIndex = entity.relationships[relationshipIndex].propertyIndex
        for reference in pending {
            state.pendingReferences.append(
                PendingReference(
                    object: objectIndex, relationshipName: entity.relationships[relationshipIndex].name, propertyIndex: propertyIndex,
                    position: reference.position, id: reference.id))
        }
        if state.keys.count == 1, !entity.relationships[relationshipIndex].isToMany {
            object.setTargetKey(state.keys[0], at: propertyIndex)
        } else if !state.keys.isEmpty {
            // A copy of its own size: the buffer stays this reader's, and a long list read once
            // does not make every later one as large.
            object.setKeys(state.keys.withUnsafeBufferPointer { Array($0) }, at: propertyIndex)
        }
    }

    // MARK: Ids that are not z<n>

    /// Gives objects with ids that are not `z<n>` keys above every other key, resolves the
    /// references to them, and refuses references to objects the file does not have.
    private func resolveUnkeyedObjects(_ state: inout State) throws(StoreError) {
        if let reference = state.highestReference, reference.key > state.highestObjectKey {
            throw StoreError(.danglingReference, "line \(reference.line): a relationship refers to z\(reference.key), an object the file does not have")
        }
        guard !state.unkeyedObjects.isEmpty || !state.pendingReferences.isEmpty else { return }
        var keysByID: [String: Int64] = [:]
        var next = max(state.highestObjectKey, state.nextObjectID - 1)
        for (index, id) in state.unkeyedObjects {
            guard next < Int64.max else { throw StoreError(.corrupt, "no key is left for the object '\(id)'") }
            next += 1
            guard keysByID.updateValue(next, forKey: id) == nil else {
                throw StoreError(.corrupt, "two objects have the id '\(id)'")
            }
            state.objects[index].primaryKey = next
        }
        state.highestObjectKey = next
        for reference in state.pendingReferences {
            guard let key = keysByID[reference.id] else {
                throw StoreError(.danglingReference, "a '\(reference.relationshipName)' relationship refers to '\(reference.id)', an object the file does not have")
            }
            let index = reference.propertyIndex
            var keys = state.objects[reference.object].keys(at: index)
            guard reference.position < keys.count else { continue }
            keys[reference.position] = key
            state.objects[reference.object].setKeys(keys, at: index)
        }
    }
}
