import Foundation

/// Writes a ``ManagedObjectModel`` as a compiled Core Data model: the `NSKeyedArchiver` archive
/// of `NSManagedObjectModel`, `NSEntityDescription`, `NSAttributeDescription`,
/// `NSRelationshipDescription`, … that a `.mom` file holds and that Core Data keeps, deflated,
/// in every SQLite store's `Z_MODELCACHE`. `ModelFiles`' `CompiledModelReader` is its inverse.
///
/// The layout is the one Core Data writes, learnt from the `Z_MODELCACHE` of the Apple-written
/// stores in the test fixtures (docs/model-files.md): the root `NSManagedObjectModel` first, its
/// `NSEntities` an `NSKnownKeysDictionary1` in name order; each entity pointing back at the model
/// and naming its sub-entities; properties in an `NSMutableDictionary`, pointing back at their
/// entity, with their flag word `_P`; relationships naming destination and inverse both by
/// reference and by name; an attribute that a single-property index covers marked `NSIsIndexed`,
/// with the index Core Data derives from that flag (named after the property) listed first.
///
/// What the archive cannot say is left out and listed in ``leftOut``: fetch request templates
/// and fetched properties whose predicates use `SUBQUERY` or a conditional, partial indexes
/// whose predicate cannot be archived, composite attributes, a default value with no archived
/// form (an object ID). The stores that write the archive log those lines.
///
/// For example:
///
/// ```swift
/// var archiver = CompiledModelArchiver()
/// let mom = try archiver.encode(model)     // the bytes of a .mom file
/// archiver.leftOut                         // [] — or what the archive could not hold
/// ```
package struct CompiledModelArchiver {
    /// Layouts older versions of Core Data and momc wrote, which the reader must still read
    /// (tests and fuzz seeds build them); the default is today's layout.
    package struct Options: Sendable {
        /// The pre-iOS 11 layout: `NSEntities` as a plain dictionary, compound indexes and
        /// `NSIsIndexed` instead of fetch index descriptions.
        package var oldLayout = false
        /// Also list inherited properties in a sub-entity's `NSProperties` (their `NSEntity` is
        /// the ancestor).
        package var listInheritedProperties = false
        /// Write the flags only as `_P` (no `NSIsOptional`/`NSIsTransient`/`NSIsOrdered` booleans).
        package var flagsOnlyInP = false

        package init(oldLayout: Bool = false, listInheritedProperties: Bool = false, flagsOnlyInP: Bool = false) {
            self.oldLayout = oldLayout
            self.listInheritedProperties = listInheritedProperties
            self.flagsOnlyInP = flagsOnlyInP
        }
    }

    /// A predicate or expression the archive has no form for (`SUBQUERY`, conditionals).
    package struct Unsupported: Error, CustomStringConvertible {
        package let description: String
    }

    /// The string every `NSKnownKeysDictionary1` holds as its empty-slot marker.
    static let emptySlotToken = "__empty_slot_token_4c24_98dc_ac1e_b773__"

    package var options: Options
    var builder = KeyedArchiveGraph.Builder()
    var entityRefs: [String: UInt64] = [:]
    /// "Entity.property" → its reference.
    var propertyRefs: [String: UInt64] = [:]
    var modelRef: UInt64 = 0
    /// Each string written once, as Core Data's archives share their strings.
    private var stringRefs: [String: UInt64] = [:]

    /// What the archive could not hold, one sentence each (empty when it holds the whole model).
    package internal(set) var leftOut: [String] = []
    /// The fetch request templates left out (their names).
    package internal(set) var skippedTemplates: Set<String> = []

    package init(options: Options = Options()) { self.options = options }

    /// The compiled form of `model` (see ``encode(_:)``).
    package static func archive(_ model: ManagedObjectModel, options: Options = Options()) throws(PropertyListError) -> Data {
        var archiver = CompiledModelArchiver(options: options)
        return try archiver.encode(model)
    }

    /// An `NSExpression` archived on its own, as Xcode writes a mapping model's value expressions.
    ///
    /// - Throws: ``Unsupported`` for an expression the archive has no form for, or a
    ///   ``PropertyListError`` for a constant that cannot be archived.
    package static func archive(_ expression: StoreExpression) throws -> Data {
        var archiver = CompiledModelArchiver()
        let root = try archiver.encodeExpression(expression)
        return archiver.builder.archive(root: root)
    }

    /// The archive of `model`, laid out as Core Data lays it out.
    ///
    /// - Throws: ``PropertyListError`` when a value in the model (a default value, user info)
    ///   cannot be archived — a date that is not finite, nesting deeper than
    ///   ``KeyedArchive/maxDepth``.
    package mutating func encode(_ model: ManagedObjectModel) throws(PropertyListError) -> Data {
        modelRef = builder.reserve()
        let entities = model.entities.sorted { $0.name < $1.name }
        for entity in entities { entityRefs[entity.name] = builder.reserve() }
        for entity in entities {
            for property in entity.declaredProperties { propertyRefs["\(entity.name).\(property.name)"] = builder.reserve() }
        }
        for entity in entities { try encodeEntity(entity) }

        var fields: [String: PropertyListValue] = [:]
        let entries = entities.map { ($0.name, entityRefs[$0.name] ?? 0) }
        if options.oldLayout {
            fields["NSEntities"] = try dictionary(entries)
        } else {
            var keys: [UInt64] = []
            for (name, _) in entries { keys.append(try stringRef(name)) }
            let keyArray = array(keys)
            let mapping = builder.add("NSKnownKeysMappingStrategy1", superclasses: ["NSKnownKeysMappingStrategy"], fields: [
                "keys": keyArray, "length": .integer(Int64(keys.count)), "version": .integer(1),
            ])
            let values = array(entries.map(\.1))
            fields["NSEntities"] = .uid(builder.add("NSKnownKeysDictionary1", superclasses: ["NSKnownKeysDictionary", "NSMutableDictionary", "NSDictionary"], fields: [
                "values": values, "searchMapping": .uid(mapping), "emptyToken": try string(Self.emptySlotToken), "version": .integer(1),
            ]))
        }
        var templates: [(String, UInt64)] = []
        for (name, request) in model.fetchRequestTemplatesByName.sorted(by: { $0.key < $1.key }) {
            do {
                templates.append((name, try encodeFetchRequest(request)))
            } catch let error as PropertyListError {
                throw error
            } catch {
                skippedTemplates.insert(name)
                leftOut.append("fetch request template \(name): \(error)")
            }
        }
        fields["NSFetchRequestTemplates"] = templates.isEmpty ? .uid(0) : try dictionary(templates)
        // Core Data records the identifiers as given: none for a model built in code, the empty
        // one for an Xcode model without one.
        var identifierRefs: [UInt64] = []
        for identifier in model.versionIdentifiers.sorted() { identifierRefs.append(try stringRef(identifier)) }
        fields["NSVersionIdentifiers"] = .uid(builder.add("NSSet", fields: ["NS.objects": .array(identifierRefs.map(PropertyListValue.uid))]))
        let configurations = model.configurations.filter { !$0.value.isEmpty }
        if !configurations.isEmpty {
            var entries: [(String, UInt64)] = []
            for (name, members) in configurations.sorted(by: { $0.key < $1.key }) {
                let set = builder.add("NSSet", fields: ["NS.objects": .array(members.sorted().compactMap { entityRefs[$0] }.map(PropertyListValue.uid))])
                entries.append((name, set))
            }
            fields["NSConfigurations"] = try dictionary(entries)
        }
        builder.set(modelRef, "NSManagedObjectModel", fields: fields)
        return builder.archive(root: modelRef)
    }

    // MARK: Building blocks

    /// A string object, written once however often it is used.
    mutating func stringRef(_ text: String) throws(PropertyListError) -> UInt64 {
        if let known = stringRefs[text] { return known }
        let reference = try builder.value(text)
        stringRefs[text] = reference
        return reference
    }

    /// A field referring to a string, or `$null`.
    mutating func string(_ text: String?) throws(PropertyListError) -> PropertyListValue {
        guard let text else { return .uid(0) }
        return .uid(try stringRef(text))
    }

    /// A field referring to a value object (see ``KeyedArchive/archive(_:)``), or `$null`.
    mutating func value(_ value: Any?) throws(PropertyListError) -> PropertyListValue {
        guard let value else { return .uid(0) }
        if let text = value as? String { return try string(text) }
        return .uid(try builder.value(value))
    }

    mutating func array(_ members: [UInt64], mutable: Bool = false) -> PropertyListValue {
        .uid(builder.add(mutable ? "NSMutableArray" : "NSArray", superclasses: mutable ? ["NSArray"] : [], fields: ["NS.objects": .array(members.map(PropertyListValue.uid))]))
    }

    mutating func dictionary(_ entries: [(String, UInt64)], className: String = "NSMutableDictionary") throws(PropertyListError) -> PropertyListValue {
        var keys: [PropertyListValue] = []
        for (key, _) in entries { keys.append(try string(key)) }
        return .uid(builder.add(className, superclasses: className == "NSMutableDictionary" ? ["NSDictionary"] : [], fields: [
            "NS.keys": .array(keys), "NS.objects": .array(entries.map { .uid($0.1) }),
        ]))
    }

    /// User info as Core Data archives it: an `NSDictionary` of strings.
    mutating func userInfo(_ info: [String: String]) throws(PropertyListError) -> PropertyListValue {
        var entries: [(String, UInt64)] = []
        for (key, value) in info.sorted(by: { $0.key < $1.key }) { entries.append((key, try stringRef(value))) }
        return try dictionary(entries, className: "NSDictionary")
    }
}
