import Foundation
import StoreCore

extension CompiledModelReader {
    private static let propertyKeys: Set<String> = [
        "$class", "NSPropertyName", "NSEntity", "NSIsOptional", "NSIsTransient", "NSIsReadOnly", "NSIsOrdered",
        "NSIndexedBySpotlight", "NSIsStoredInTruth", "NSAllowsCloudEncryption", "NSRenamingIdentifier",
        "NSValidationPredicates", "NSValidationWarnings", "NSUserInfo", "NSVersionHashModifier", "_P",
    ]
    private static let attributeKeys: Set<String> = propertyKeys.union([
        "NSAttributeType", "NSAttributeValueClassName", "NSDefaultValue", "NSValueTransformerName", "NSIsIndexed",
        "NSFlagsKey", "NSDerivationExpression", "NSFilteringPredicate",
    ])
    private static let relationshipKeys: Set<String> = propertyKeys.union([
        "NSDestinationEntity", "_NSDestinationEntityName", "NSInverseRelationship", "_NSInverseRelationshipName",
        "NSMinCount", "NSMaxCount", "NSDeleteRule",
    ])

    /// The value class Core Data records for each attribute type.
    static let standardValueClasses: [Int64: String] = [
        100: "NSNumber", 200: "NSNumber", 300: "NSNumber", 400: "NSDecimalNumber", 500: "NSNumber", 600: "NSNumber",
        700: "NSString", 800: "NSNumber", 900: "NSDate", 1000: "NSData", 1100: "NSUUID", 1200: "NSURL", 2000: "NSManagedObjectID",
    ]

    /// The flags every property has: `_P` when it is written (bit 2 optional, 8 transient, 0x400
    /// ordered), else the separate `NSIsOptional`/`NSIsTransient`/`NSIsOrdered` booleans.
    private func flags(of property: KeyedArchiveGraph.Instance) -> (optional: Bool, transient: Bool, ordered: Bool) {
        let bits = property["_P"]?.integerValue ?? 0
        func flag(_ key: String, _ bit: Int64) -> Bool { property[key]?.booleanValue == true || (bits & bit) != 0 }
        return (flag("NSIsOptional", 0x2), flag("NSIsTransient", 0x8), flag("NSIsOrdered", 0x400))
    }

    private mutating func common(_ property: KeyedArchiveGraph.Instance, entity: String, known: Set<String>) throws(ModelFileError) -> (name: String, renaming: String?, modifier: String?, userInfo: [String: String]) {
        let graph = graph
        guard let name = try archive("a property of \(entity)", { () throws(PropertyListError) in try graph.string(property["NSPropertyName"]) }), !name.isEmpty else {
            throw malformed("a property of \(entity) has no NSPropertyName")
        }
        for unknown in property.fields.keys.sorted() where !known.contains(unknown) {
            warn("\(entity).\(name): unknown key '\(unknown)' was ignored")
        }
        let renaming = try archive("\(entity).\(name)", { () throws(PropertyListError) in try graph.string(property["NSRenamingIdentifier"]) })
        let modifier = try archive("\(entity).\(name)", { () throws(PropertyListError) in try graph.string(property["NSVersionHashModifier"]) })
        let userInfo = try readUserInfo(property["NSUserInfo"], of: "\(entity).\(name)")
        // Core Data records the name as the renaming identifier when none was set.
        return (name, renaming == name ? nil : renaming, modifier?.isEmpty == true ? nil : modifier, userInfo)
    }

    /// `NSAttributeDescription` (and its derived form); `nil`, with a warning, for the types
    /// Stowage has no counterpart for (composite, a stored Undefined attribute).
    mutating func readAttribute(_ property: KeyedArchiveGraph.Instance, entity: String) throws(ModelFileError) -> AttributeDescription? {
        let graph = graph
        let (name, renaming, modifier, userInfo) = try common(property, entity: entity, known: Self.attributeKeys)
        let place = "\(entity).\(name)"
        let flags = flags(of: property)
        let transformerName = try archive(place, { () throws(PropertyListError) in try graph.string(property["NSValueTransformerName"]) })
            .flatMap { $0.isEmpty ? nil : $0 }
        let code = property["NSAttributeType"]?.integerValue ?? 0
        let type: AttributeType
        switch code {
        case 100: type = .integer16
        case 200: type = .integer32
        case 300: type = .integer64
        case 400: type = .decimal
        case 500: type = .double
        case 600: type = .float
        case 700: type = .string
        case 800: type = .boolean
        case 900: type = .date
        case 1000: type = .binaryData
        case 1100: type = .uuid
        case 1200: type = .uri
        case 1800:
            // Core Data reads the old constant's name as the secure transformer.
            let name = transformerName == "NSSecureUnarchiveFromDataTransformerName" ? "NSSecureUnarchiveFromData" : transformerName
            type = .transformable(named: name ?? "NSKeyedUnarchiveFromData")
        case 2000: type = .objectID
        case 0:
            // Xcode's "Undefined": only a transient attribute may have it, as in a source model.
            guard flags.transient else {
                warn("attribute \(place) has the Undefined type but is not transient; the attribute was left out")
                return nil
            }
            type = .undefined
        case 2100:
            warn("attribute \(place) is a composite attribute, which Stowage reads from Xcode model files but not yet from compiled models; the attribute was left out")
            return nil
        default:
            warn("attribute \(place) has the unknown NSAttributeType \(code); the attribute was left out")
            return nil
        }
        if property.className == "NSCompositeAttributeDescription" {
            warn("attribute \(place) is a composite attribute, which Stowage reads from Xcode model files but not yet from compiled models; the attribute was left out")
            return nil
        }
        if let transformerName, code != 1800 {
            warn("attribute \(place): NSValueTransformerName '\(transformerName)' applies only to Transformable attributes; ignored")
        }
        var derivation: String?
        if property.className == "NSDerivedAttributeDescription" {
            do {
                derivation = try ArchivedPredicate(graph: graph).expression(property["NSDerivationExpression"])
            } catch {
                warn("attribute \(place): its derivation expression cannot be read (\(error)); it is kept as an empty expression")
                derivation = ""
            }
            if property["NSFilteringPredicate"] != nil {
                warn("attribute \(place): the derivation's filtering predicate is not supported and was ignored")
            }
            if let expression = derivation, AttributeDerivation(parsing: expression) == nil {
                warn("attribute \(place): derivation '\(expression)' is not one Core Data computes; the attribute is stored as given")
                derivation = nil
            }
        }
        let defaultValue = try readDefaultValue(property["NSDefaultValue"], type: type, place: place)
        let rules = readValidationRules(property["NSValidationPredicates"], type: type, place: place)
        let flagBits = property["NSFlagsKey"]?.integerValue ?? 0
        // The value class: a transformable's (or a custom one) is kept; the standard class of
        // the type (NSString for a string, …) is what Core Data records for every attribute.
        var className = try archive(place, { () throws(PropertyListError) in try graph.string(property["NSAttributeValueClassName"]) })
        if let name = className, Self.standardValueClasses[code] == name { className = nil }
        return AttributeDescription(
            name: name, type: type, isOptional: flags.optional, defaultValue: defaultValue, isTransient: flags.transient,
            validationRules: rules, allowsExternalBinaryDataStorage: flagBits & 0x4 != 0,
            preservesValueInHistoryOnDeletion: flagBits & 0x10 != 0, userInfo: userInfo, renamingIdentifier: renaming,
            versionHashModifier: modifier, customClassName: className?.isEmpty == true ? nil : className,
            derivationExpression: derivation)
    }

    /// `NSDefaultValue`: a value object, as the attribute's type.
    private mutating func readDefaultValue(_ field: PropertyListValue?, type: AttributeType, place: String) throws(ModelFileError) -> StoreValue {
        let graph = graph
        let decoded: Any?
        do {
            decoded = try graph.value(field)
        } catch {
            warn("attribute \(place): the default value cannot be read (\(error)); no default")
            return .null
        }
        guard let decoded, !(decoded is NSNull) else { return .null }
        let value: StoreValue?
        switch decoded {
        case let bool as Bool: value = .boolean(bool)
        case let integer as Int: value = .integer(Int64(integer))
        case let integer as Int64: value = .integer(integer)
        case let real as Double:
            if type == .float { value = .float(Float(real)) } else { value = .double(real) }
        case let decimal as Decimal: value = .decimal(decimal)
        case let string as String:
            switch type {
            case .string: value = .string(string)
            case .uuid: value = UUID(uuidString: string).map(StoreValue.uuid)
            case .uri: value = URL(string: string).map(StoreValue.uri)
            default: value = ModelContentsReader.number(string, for: type)
            }
        case let date as Date: value = .date(date)
        case let data as Data: value = .data(data)
        case let uuid as UUID: value = .uuid(uuid)
        case let url as URL: value = .uri(url)
        default: value = nil
        }
        guard let value, let coerced = type.coerce(value) else {
            warn("attribute \(place): the default value is not a \(type.name) value; no default")
            return .null
        }
        return coerced
    }

    /// `NSValidationPredicates`: the comparisons Xcode writes for minimum/maximum values and
    /// lengths (`SELF >= 1`, `length <= 20`) and patterns (`SELF MATCHES "…"`); anything else is
    /// left out with a warning.
    private mutating func readValidationRules(_ field: PropertyListValue?, type: AttributeType, place: String) -> [AttributeValidationRule] {
        guard field != nil else { return [] }
        let graph = graph
        let predicates: [UInt64]
        do {
            predicates = try graph.members(field) ?? []
        } catch {
            warn("attribute \(place): the validation predicates cannot be read (\(error)); ignored")
            return []
        }
        var rules: [AttributeValidationRule] = []
        for reference in predicates {
            do {
                if let rule = try ArchivedPredicate(graph: graph).validationRule(.uid(reference), type: type) {
                    rules.append(rule)
                } else {
                    warn("attribute \(place): a validation predicate that is not a minimum, maximum, length or pattern was ignored")
                }
            } catch {
                warn("attribute \(place): a validation predicate cannot be read (\(error)); ignored")
            }
        }
        return rules
    }

    /// `NSRelationshipDescription`: destination and inverse by name (or through the referenced
    /// descriptions), `NSMinCount`/`NSMaxCount` (a to-many has a maximum other than 1),
    /// `NSDeleteRule` (0 no action, 1 nullify, 2 cascade, 3 deny), ordered.
    mutating func readRelationship(_ property: KeyedArchiveGraph.Instance, entity: String) throws(ModelFileError) -> RelationshipDescription {
        let graph = graph
        let (name, renaming, modifier, userInfo) = try common(property, entity: entity, known: Self.relationshipKeys)
        let place = "\(entity).\(name)"
        let destination = try archive(place, { () throws(PropertyListError) -> String? in
            if let name = try graph.string(property["_NSDestinationEntityName"]) { return name }
            return try graph.instance(property["NSDestinationEntity"]).flatMap { entity throws(PropertyListError) in try graph.string(entity["NSEntityName"]) }
        })
        guard let destination, !destination.isEmpty else { throw malformed("relationship \(place) has no destination entity") }
        var inverse = try archive(place, { () throws(PropertyListError) -> String? in
            if let name = try graph.string(property["_NSInverseRelationshipName"]) { return name }
            return try graph.instance(property["NSInverseRelationship"]).flatMap { inverse throws(PropertyListError) in try graph.string(inverse["NSPropertyName"]) }
        })
        if inverse?.isEmpty == true { inverse = nil }
        let deleteRule: DeleteRule
        switch property["NSDeleteRule"]?.integerValue ?? 1 {
        case 0: deleteRule = .noAction
        case 1: deleteRule = .nullify
        case 2: deleteRule = .cascade
        case 3: deleteRule = .deny
        case let other:
            warn("relationship \(place): unknown NSDeleteRule \(other), taken as nullify")
            deleteRule = .nullify
        }
        let flags = flags(of: property)
        let minCount = Int(clamping: property["NSMinCount"]?.integerValue ?? 0)
        let maxCount = Int(clamping: property["NSMaxCount"]?.integerValue ?? 0)
        let isToMany = maxCount != 1
        return RelationshipDescription(
            name: name, destinationEntityName: destination, inverseName: inverse, isToMany: isToMany,
            isOrdered: flags.ordered, deleteRule: deleteRule, isOptional: flags.optional,
            minCount: max(0, minCount), maxCount: isToMany ? max(0, maxCount) : 1, isTransient: flags.transient,
            userInfo: userInfo, renamingIdentifier: renaming, versionHashModifier: modifier)
    }

    /// `NSFetchedPropertyDescription`: its `NSFetchRequest`.
    mutating func readFetchedProperty(_ property: KeyedArchiveGraph.Instance, entity: String) throws(ModelFileError) -> FetchedPropertyDescription? {
        let (name, _, _, userInfo) = try common(property, entity: entity, known: Self.propertyKeys.union(["NSFetchRequest"]))
        let graph = graph
        guard let reference = try archive("\(entity).\(name)", { () throws(PropertyListError) in try graph.reference(property["NSFetchRequest"]) }) else {
            warn("fetched property \(entity).\(name) has no fetch request and was left out")
            return nil
        }
        guard let request = try readFetchRequest(at: reference, named: "fetched property \(entity).\(name)") else { return nil }
        return FetchedPropertyDescription(name: name, fetchRequest: request, userInfo: userInfo)
    }
}
