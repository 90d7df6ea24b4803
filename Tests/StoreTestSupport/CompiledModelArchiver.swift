import Foundation
import StoreCore

/// Writes a ``ManagedObjectModel`` as a compiled Core Data model (`.mom` bytes) with the
/// project's own keyed-archive encoder, laid out as momc and Core Data lay out the real ones
/// (studied on public `.mom` files and on the `Z_MODELCACHE` of the fixture stores): the root
/// `NSManagedObjectModel` with `NSEntities` as an `NSKnownKeysDictionary1` (or, in the older
/// layout, an `NSMutableDictionary`), entities pointing back at the model, properties in an
/// `NSMutableDictionary` pointing back at their entity, `_P` flag words, relationships naming
/// their destination and inverse both by reference and by name, fetch requests with archived
/// predicates. Tests use it to build compiled models without committing Apple-written files.
///
/// For example:
///
/// ```swift
/// try CompiledModelArchiver.archive(try BlogModel.make()).write(to: directory.file("Blog.mom"))
/// ```
public struct CompiledModelArchiver {
    public struct Options {
        /// The pre-iOS 11 layout: `NSEntities` as a plain dictionary, compound indexes and
        /// `NSIsIndexed` instead of fetch index descriptions.
        public var oldLayout = false
        /// Also list inherited properties in a sub-entity's `NSProperties` (their `NSEntity` is
        /// the ancestor).
        public var listInheritedProperties = false
        /// Write the flags only as `_P` (no `NSIsOptional`/`NSIsTransient`/`NSIsOrdered` booleans).
        public var flagsOnlyInP = false

        public init(oldLayout: Bool = false, listInheritedProperties: Bool = false, flagsOnlyInP: Bool = false) {
            self.oldLayout = oldLayout
            self.listInheritedProperties = listInheritedProperties
            self.flagsOnlyInP = flagsOnlyInP
        }
    }

    public struct Unsupported: Error { public let what: String }

    public var options = Options()
    private var builder = KeyedArchiveGraph.Builder()
    private var entityRefs: [String: UInt64] = [:]
    private var propertyRefs: [String: UInt64] = [:]  // "Entity.property"
    private var modelRef: UInt64 = 0

    public init(options: Options = Options()) { self.options = options }

    /// Fetch request templates left out because their predicate uses what the archiver does
    /// not write (subqueries, functions).
    public private(set) var skippedTemplates: Set<String> = []

    public static func archive(_ model: ManagedObjectModel, options: Options = Options()) throws -> Data {
        var archiver = CompiledModelArchiver(options: options)
        return try archiver.encode(model)
    }

    private mutating func string(_ text: String?) throws -> PropertyListValue {
        guard let text else { return .uid(0) }
        return .uid(try builder.value(text))
    }

    private mutating func value(_ value: Any?) throws -> PropertyListValue {
        guard let value else { return .uid(0) }
        return .uid(try builder.value(value))
    }

    private mutating func array(_ members: [UInt64], mutable: Bool = false) -> PropertyListValue {
        .uid(builder.add(mutable ? "NSMutableArray" : "NSArray", superclasses: mutable ? ["NSArray"] : [], fields: ["NS.objects": .array(members.map(PropertyListValue.uid))]))
    }

    private mutating func dictionary(_ entries: [(String, UInt64)], className: String = "NSMutableDictionary") throws -> PropertyListValue {
        var keys: [PropertyListValue] = []
        for (key, _) in entries { keys.append(try string(key)) }
        return .uid(builder.add(className, superclasses: className == "NSMutableDictionary" ? ["NSDictionary"] : [], fields: [
            "NS.keys": .array(keys), "NS.objects": .array(entries.map { .uid($0.1) }),
        ]))
    }

    public mutating func encode(_ model: ManagedObjectModel) throws -> Data {
        modelRef = builder.reserve()
        for entity in model.entities { entityRefs[entity.name] = builder.reserve() }
        for entity in model.entities {
            for property in entity.declaredProperties { propertyRefs["\(entity.name).\(property.name)"] = builder.reserve() }
        }
        for entity in model.entities { try encodeEntity(entity) }

        var fields: [String: PropertyListValue] = [:]
        let entries = model.entities.map { ($0.name, entityRefs[$0.name] ?? 0) }
        if options.oldLayout {
            fields["NSEntities"] = try dictionary(entries)
        } else {
            var keys: [UInt64] = []
            for (name, _) in entries { keys.append(try builder.value(name)) }
            let keyArray = array(keys)
            let mapping = builder.add("NSKnownKeysMappingStrategy1", superclasses: ["NSKnownKeysMappingStrategy"], fields: [
                "keys": keyArray, "length": .integer(Int64(keys.count)), "version": .integer(1),
            ])
            let values = array(entries.map(\.1))
            fields["NSEntities"] = .uid(builder.add("NSKnownKeysDictionary1", superclasses: ["NSKnownKeysDictionary", "NSMutableDictionary", "NSDictionary"], fields: [
                "values": values, "searchMapping": .uid(mapping), "emptyToken": try string("__empty_slot_token_4c24_98dc_ac1e_b773__"),
                "version": .integer(1),
            ]))
        }
        var templates: [(String, UInt64)] = []
        for (name, request) in model.fetchRequestTemplatesByName.sorted(by: { $0.key < $1.key }) {
            do {
                templates.append((name, try encodeFetchRequest(request)))
            } catch is Unsupported {
                skippedTemplates.insert(name)
            }
        }
        fields["NSFetchRequestTemplates"] = templates.isEmpty ? .uid(0) : try dictionary(templates)
        let identifiers = model.versionIdentifiers.isEmpty ? [""] : model.versionIdentifiers.sorted()
        var identifierRefs: [UInt64] = []
        for identifier in identifiers { identifierRefs.append(try builder.value(identifier)) }
        fields["NSVersionIdentifiers"] = .uid(builder.add("NSSet", fields: ["NS.objects": .array(identifierRefs.map(PropertyListValue.uid))]))
        let configurations = model.configurations.filter { !$0.value.isEmpty }
        if !configurations.isEmpty {
            var entries: [(String, UInt64)] = []
            for (name, members) in configurations.sorted(by: { $0.key < $1.key }) {
                let set = builder.add("NSSet", fields: ["NS.objects": .array(members.compactMap { entityRefs[$0] }.map(PropertyListValue.uid))])
                entries.append((name, set))
            }
            fields["NSConfigurations"] = try dictionary(entries)
        }
        builder.set(modelRef, "NSManagedObjectModel", fields: fields)
        return builder.archive(root: modelRef)
    }

    private mutating func encodeEntity(_ entity: EntityDescription) throws {
        guard let reference = entityRefs[entity.name] else { return }
        var fields: [String: PropertyListValue] = [
            "NSEntityName": try string(entity.name),
            "NSClassNameForEntity": try string(entity.representedClassName ?? "NSManagedObject"),
            "NSManagedObjectModel": .uid(modelRef),
            "NSSuperentity": .uid(entity.superentityName.flatMap { entityRefs[$0] } ?? 0),
            "NSVersionHashModifier": try string(entity.versionHashModifier),
            // Core Data records the name when there is no renaming identifier.
            "NSRenamingIdentifier": .uid(builder.add("NSMutableString", superclasses: ["NSString"], fields: ["NS.string": .string(entity.renamingIdentifier ?? entity.name)])),
        ]
        if entity.isAbstract { fields["NSIsAbstract"] = .boolean(true) }
        fields["NSSubentities"] = try dictionary(entity.subentities.map { ($0.name, entityRefs[$0.name] ?? 0) })
        var properties: [(String, UInt64)] = []
        for property in entity.declaredProperties {
            let key = "\(entity.name).\(property.name)"
            guard let propertyRef = propertyRefs[key] else { continue }
            try encodeProperty(property, entity: entity, at: propertyRef)
            properties.append((property.name, propertyRef))
        }
        if options.listInheritedProperties {
            var ancestor = entity.superentity
            while let current = ancestor {
                for property in current.declaredProperties {
                    if let inherited = propertyRefs["\(current.name).\(property.name)"] { properties.append((property.name, inherited)) }
                }
                ancestor = current.superentity
            }
        }
        for fetched in entity.fetchedProperties {
            let request = try encodeFetchRequest(fetched.fetchRequest)
            var flags: Int64 = 0x1 | 0x2 | 0x10 | 0x20 | 0x80
            var fetchedFields: [String: PropertyListValue] = [
                "NSPropertyName": try string(fetched.name), "NSEntity": .uid(reference), "NSFetchRequest": .uid(request),
                "NSRenamingIdentifier": try string(fetched.name), "NSIsOptional": .boolean(true),
            ]
            if fetched.userInfo.isEmpty { flags |= 0x40 } else { fetchedFields["NSUserInfo"] = try value(fetched.userInfo) }
            fetchedFields["_P"] = .integer(flags)
            properties.append((fetched.name, builder.add("NSFetchedPropertyDescription", superclasses: ["NSPropertyDescription"], fields: fetchedFields)))
        }
        fields["NSProperties"] = try dictionary(properties)
        fields["NSUserInfo"] = try dictionary(try entity.userInfo.sorted { $0.key < $1.key }.map { ($0.key, try builder.value($0.value)) }, className: "NSDictionary")
        if !entity.uniquenessConstraints.isEmpty {
            var tuples: [UInt64] = []
            for constraint in entity.uniquenessConstraints {
                var names: [UInt64] = []
                for name in constraint { names.append(try builder.value(name)) }
                tuples.append(builder.add("NSMutableArray", superclasses: ["NSArray"], fields: ["NS.objects": .array(names.map(PropertyListValue.uid))]))
            }
            fields["NSUniqueTuples"] = array(tuples, mutable: true)
        }
        if options.oldLayout {
            var compounds: [UInt64] = []
            for index in entity.indexes where index.elements.count > 1 {
                var names: [UInt64] = []
                for element in index.elements { names.append(try builder.value(element.property)) }
                compounds.append(builder.add("NSMutableArray", superclasses: ["NSArray"], fields: ["NS.objects": .array(names.map(PropertyListValue.uid))]))
            }
            fields["NSCompoundIndexes"] = array(compounds, mutable: true)
        } else {
            var indexes: [UInt64] = []
            for index in entity.indexes {
                let indexRef = builder.reserve()
                var elements: [UInt64] = []
                for element in index.elements {
                    elements.append(builder.add("NSFetchIndexElementDescription", fields: [
                        "NSPropertyName": try string(element.property), "NSFetchIndexElementType": .integer(index.kind == .rTree ? 1 : 0),
                        "NSFetchIndexDescription": .uid(indexRef), "NSAscending": .boolean(element.ascending),
                    ]))
                }
                var partial: PropertyListValue = .uid(0)
                if let text = index.partialIndexPredicate { partial = .uid(try encodePredicate(try StorePredicate(format: text))) }
                builder.set(indexRef, "NSFetchIndexDescription", fields: [
                    "NSIndexName": try string(index.name), "NSPartialIndexPredicate": partial, "NSIndexElements": array(elements),
                    "NSEntity": .uid(reference),
                ])
                indexes.append(indexRef)
            }
            fields["NSFetchIndexDescriptions"] = array(indexes, mutable: true)
            fields["NSCompoundIndexes"] = array([], mutable: true)
        }
        builder.set(reference, "NSEntityDescription", fields: fields)
    }

    private mutating func propertyFields(_ property: PropertyDescription, entity: EntityDescription) throws -> [String: PropertyListValue] {
        var flags: Int64 = 0x1 | 0x10 | 0x20
        var fields: [String: PropertyListValue] = [
            "NSPropertyName": try string(property.name), "NSEntity": .uid(entityRefs[entity.name] ?? 0),
            "NSRenamingIdentifier": try string(property.renamingIdentifier ?? property.name),
        ]
        if property.isOptional {
            flags |= 0x2
            if !options.flagsOnlyInP { fields["NSIsOptional"] = .boolean(true) }
        }
        if property.isTransient {
            flags |= 0x8
            if !options.flagsOnlyInP { fields["NSIsTransient"] = .boolean(true) }
        }
        if let relationship = property as? RelationshipDescription, relationship.isOrdered {
            flags |= 0x400
            if !options.flagsOnlyInP { fields["NSIsOrdered"] = .boolean(true) }
        }
        if property.userInfo.isEmpty { flags |= 0x40 } else {
            fields["NSUserInfo"] = try dictionary(try property.userInfo.sorted { $0.key < $1.key }.map { ($0.key, try builder.value($0.value)) }, className: "NSDictionary")
        }
        if let modifier = property.versionHashModifier { fields["NSVersionHashModifier"] = try string(modifier) } else { flags |= 0x80 }
        fields["_P"] = .integer(flags)
        return fields
    }

    private mutating func encodeProperty(_ property: PropertyDescription, entity: EntityDescription, at reference: UInt64) throws {
        var fields = try propertyFields(property, entity: entity)
        if let attribute = property as? AttributeDescription {
            let (code, valueClass) = Self.typeCode(attribute.attributeType)
            fields["NSAttributeType"] = .integer(code)
            fields["NSAttributeValueClassName"] = try string(attribute.customClassName ?? valueClass)
            fields["NSDefaultValue"] = try value(Self.swiftValue(attribute.defaultValue))
            fields["NSValueTransformerName"] = try string(attribute.valueTransformerName)
            var flagBits: Int64 = 0
            if attribute.allowsExternalBinaryDataStorage { flagBits |= 0x4 }
            if attribute.preservesValueInHistoryOnDeletion { flagBits |= 0x10 }
            fields["NSFlagsKey"] = .integer(flagBits)
            if options.oldLayout, entity.indexes.contains(where: { $0.elements.count == 1 && $0.elements[0].property == attribute.name }) {
                fields["NSIsIndexed"] = .boolean(true)
            }
            if !attribute.validationRules.isEmpty {
                var predicates: [UInt64] = []
                var warnings: [UInt64] = []
                for rule in attribute.validationRules {
                    predicates.append(try encodeRule(rule))
                    warnings.append(try builder.value(1550))
                }
                fields["NSValidationPredicates"] = array(predicates)
                fields["NSValidationWarnings"] = array(warnings)
                if case .integer(let bits) = fields["_P"] { fields["_P"] = .integer(bits & ~0x30) }
            }
            var className = "NSAttributeDescription"
            var superclasses = ["NSPropertyDescription"]
            if let expression = attribute.derivationExpression {
                className = "NSDerivedAttributeDescription"
                superclasses = ["NSAttributeDescription", "NSPropertyDescription"]
                fields["NSDerivationExpression"] = .uid(try encodeDerivation(expression))
            }
            builder.set(reference, className, superclasses: superclasses, fields: fields)
        } else if let relationship = property as? RelationshipDescription {
            fields["NSDestinationEntity"] = .uid(entityRefs[relationship.destinationEntityName] ?? 0)
            fields["_NSDestinationEntityName"] = try string(relationship.destinationEntityName)
            if let inverse = relationship.inverseName {
                fields["NSInverseRelationship"] = .uid(propertyRefs["\(relationship.destinationEntityName).\(inverse)"] ?? 0)
                fields["_NSInverseRelationshipName"] = try string(inverse)
            }
            fields["NSMinCount"] = .integer(Int64(relationship.minCount))
            fields["NSMaxCount"] = .integer(Int64(relationship.isToMany ? relationship.maxCount : 1))
            fields["NSDeleteRule"] = .integer(Self.deleteRuleCode(relationship.deleteRule))
            builder.set(reference, "NSRelationshipDescription", superclasses: ["NSPropertyDescription"], fields: fields)
        }
    }

    static func deleteRuleCode(_ rule: DeleteRule) -> Int64 {
        switch rule {
        case .noAction: 0
        case .nullify: 1
        case .cascade: 2
        case .deny: 3
        }
    }

    /// `NSAttributeType` and the value class Core Data records (a lookup rather than a switch, so
    /// that new attribute types only make this return 0).
    static func typeCode(_ type: AttributeType) -> (Int64, String?) {
        if case .transformable = type { return (1800, nil) }
        let codes: [AttributeType: (Int64, String?)] = [
            .integer16: (100, "NSNumber"), .integer32: (200, "NSNumber"), .integer64: (300, "NSNumber"),
            .decimal: (400, "NSDecimalNumber"), .double: (500, "NSNumber"), .float: (600, "NSNumber"), .string: (700, "NSString"),
            .boolean: (800, "NSNumber"), .date: (900, "NSDate"), .binaryData: (1000, "NSData"), .uuid: (1100, "NSUUID"),
            .uri: (1200, "NSURL"), .objectID: (2000, nil),
        ]
        return codes[type] ?? (0, nil)
    }

    static func swiftValue(_ value: StoreValue) -> Any? {
        switch value {
        case .null: nil
        case .integer(let integer): integer
        case .double(let double): double
        case .float(let float): Double(float)
        case .decimal(let decimal): decimal
        case .string(let string): string
        case .boolean(let bool): bool
        case .date(let date): date
        case .data(let data): data
        case .uuid(let uuid): uuid
        case .uri(let url): url
        default: nil
        }
    }

    // MARK: Fetch requests and predicates

    private mutating func encodeFetchRequest(_ request: StoreFetchRequest) throws -> UInt64 {
        var flags: Int64 = 0
        if request.returnsDistinctResults { flags |= 0x1 }
        if request.includesSubentities { flags |= 0x2 }
        if request.includesPropertyValues { flags |= 0x4 }
        if request.returnsObjectsAsFaults { flags |= 0x8 }
        if request.includesPendingChanges { flags |= 0x10 }
        let resultType: Int64
        switch request.resultType {
        case .managedObject: resultType = 0
        case .managedObjectID: resultType = 1
        case .dictionary: resultType = 2
        case .count: resultType = 4
        }
        return builder.add("NSFetchRequest", superclasses: ["NSPersistentStoreRequest"], fields: [
            "NSEntity": .uid(entityRefs[request.entityName] ?? 0),
            "NSPredicate": .uid(try request.predicate.map { try encodePredicate($0) } ?? 0),
            "NSFetchLimit": .integer(Int64(request.fetchLimit)), "NSFetchOffset": .integer(Int64(request.fetchOffset)),
            "NSBatchSize": .integer(Int64(request.fetchBatchSize)), "NSResultType": .integer(resultType),
            "NSHasFetchRequestFlags": .boolean(true), "NSFetchRequestFlags": .integer(flags),
            "NSSortDescriptors": .uid(0), "NSValuesToFetch": .uid(0), "NSValuesToGroupBy": .uid(0), "NSHavingPredicate": .uid(0),
            "NSRelationshipKeyPathsForPrefetching": .uid(0),
        ])
    }

    mutating func encodePredicate(_ predicate: StorePredicate) throws -> UInt64 {
        // `if case` rather than a switch, so that new kinds of predicate are only "unsupported" here.
        if case .constant(let value) = predicate {
            return builder.add(value ? "NSTruePredicate" : "NSFalsePredicate", superclasses: ["NSPredicate"], fields: [:])
        }
        if case .and(let parts) = predicate { return try compound(1, parts) }
        if case .or(let parts) = predicate { return try compound(2, parts) }
        if case .not(let part) = predicate { return try compound(0, [part]) }
        if case .comparison(let comparison) = predicate {
            let codes: [StoreComparison.Operator: Int64] = [
                .lessThan: 0, .lessThanOrEqualTo: 1, .greaterThan: 2, .greaterThanOrEqualTo: 3, .equalTo: 4, .notEqualTo: 5,
                .matches: 6, .like: 7, .beginsWith: 8, .endsWith: 9, .in: 10, .contains: 99, .between: 100,
            ]
            let operatorClass: String
            switch comparison.operator {
            case .like, .matches: operatorClass = "NSLikePredicateOperator"
            case .beginsWith, .endsWith, .contains: operatorClass = "NSSubstringPredicateOperator"
            case .in: operatorClass = "NSInPredicateOperator"
            case .between: operatorClass = "NSBetweenPredicateOperator"
            default: operatorClass = "NSEqualityPredicateOperator"
            }
            let modifier: Int64 = comparison.modifier == .all ? 1 : comparison.modifier == .any ? 2 : 0
            let operation = builder.add(operatorClass, superclasses: ["NSPredicateOperator"], fields: [
                "NSOperatorType": .integer(codes[comparison.operator] ?? 4), "NSModifier": .integer(modifier),
                "NSFlags": .integer(Int64(comparison.options.rawValue)),
            ])
            return builder.add("NSComparisonPredicate", superclasses: ["NSPredicate"], fields: [
                "NSLeftExpression": .uid(try encodeExpression(comparison.left)), "NSRightExpression": .uid(try encodeExpression(comparison.right)),
                "NSPredicateOperator": .uid(operation),
            ])
        }
        throw Unsupported(what: "\(predicate)")
    }

    private mutating func compound(_ type: Int64, _ parts: [StorePredicate]) throws -> UInt64 {
        var references: [UInt64] = []
        for part in parts { references.append(try encodePredicate(part)) }
        return builder.add("NSCompoundPredicate", superclasses: ["NSPredicate"], fields: [
            "NSCompoundPredicateType": .integer(type), "NSSubpredicates": array(references, mutable: true),
        ])
    }

    mutating func encodeExpression(_ expression: StoreExpression) throws -> UInt64 {
        switch expression {
        case .constant(let value):
            return builder.add("NSConstantValueExpression", superclasses: ["NSExpression"], fields: [
                "NSConstantValue": try self.value(Self.swiftValue(value)), "NSExpressionType": .integer(0),
            ])
        case .evaluatedObject:
            return builder.add("NSSelfExpression", superclasses: ["NSExpression"], fields: ["NSExpressionType": .integer(1)])
        case .variable(let name):
            return builder.add("NSVariableExpression", superclasses: ["NSExpression"], fields: ["NSVariable": try string(name), "NSExpressionType": .integer(2)])
        case .keyPath(let path):
            return try keyPath(path)
        case .member(let base, let key):
            return try keyPath(key, on: try encodeExpression(base))
        case .aggregate(let members):
            var references: [UInt64] = []
            for member in members { references.append(try encodeExpression(member)) }
            return builder.add("NSAggregateExpression", superclasses: ["NSExpression"], fields: [
                "NSCollection": array(references), "NSExpressionType": .integer(14),
            ])
        case .function("FUNCTION", let arguments) where arguments.count >= 2:
            guard case .constant(.string(let selector)) = arguments[1] else { throw Unsupported(what: "\(expression)") }
            return try function(selector, operand: try encodeExpression(arguments[0]), arguments: Array(arguments.dropFirst(2)))
        case .function(let name, let arguments):
            let operand = builder.add("NSSelfExpression", superclasses: ["NSExpression"], fields: ["NSExpressionType": .integer(1)])
            return try function(name, operand: operand, arguments: arguments)
        default:
            throw Unsupported(what: "\(expression)")
        }
    }

    private mutating func function(_ selector: String, operand: UInt64, arguments: [StoreExpression]) throws -> UInt64 {
        var references: [UInt64] = []
        for argument in arguments { references.append(try encodeExpression(argument)) }
        return builder.add("NSFunctionExpression", superclasses: ["NSExpression"], fields: [
            "NSOperand": .uid(operand), "NSSelectorName": try string(selector), "NSArguments": array(references, mutable: true),
            "NSExpressionType": .integer(4),
        ])
    }

    /// An `NSExpression` archived on its own, as Xcode writes a mapping model's value expressions.
    public static func archive(_ expression: StoreExpression) throws -> Data {
        var archiver = CompiledModelArchiver()
        let root = try archiver.encodeExpression(expression)
        return archiver.builder.archive(root: root)
    }

    /// A key path as Core Data archives it: `valueForKey:` on `SELF` with a key path specifier.
    private mutating func keyPath(_ path: String, on base: UInt64? = nil) throws -> UInt64 {
        let operand = base ?? builder.add("NSSelfExpression", superclasses: ["NSExpression"], fields: ["NSExpressionType": .integer(1)])
        let specifier = builder.add("NSKeyPathSpecifierExpression", superclasses: ["NSExpression"], fields: [
            "NSKeyPath": try string(path), "NSExpressionType": .integer(10),
        ])
        return builder.add("NSKeyPathExpression", superclasses: ["NSFunctionExpression", "NSExpression"], fields: [
            "NSOperand": .uid(operand), "NSSelectorName": try string("valueForKey:"), "NSArguments": array([specifier], mutable: true),
            "NSExpressionType": .integer(3),
        ])
    }

    /// A derivation expression as written in a model file: `now()`, `name:(key.path)`, or a key path.
    private mutating func encodeDerivation(_ text: String) throws -> UInt64 {
        if text.hasSuffix(")"), let open = text.firstIndex(of: "(") {
            let selector = String(text[..<open])
            let inner = String(text[text.index(after: open)..<text.index(before: text.endIndex)])
            var arguments: [UInt64] = []
            if !inner.isEmpty { arguments.append(try keyPath(inner)) }
            let operand = builder.add("NSSelfExpression", superclasses: ["NSExpression"], fields: ["NSExpressionType": .integer(1)])
            return builder.add("NSFunctionExpression", superclasses: ["NSExpression"], fields: [
                "NSOperand": .uid(operand), "NSSelectorName": try string(selector), "NSArguments": array(arguments, mutable: true),
                "NSExpressionType": .integer(4),
            ])
        }
        return try keyPath(text)
    }

    private mutating func encodeRule(_ rule: AttributeValidationRule) throws -> UInt64 {
        let (left, type, right): (StoreExpression, StoreComparison.Operator, StoreValue)
        switch rule {
        case .minimum(let value): (left, type, right) = (.evaluatedObject, .greaterThanOrEqualTo, value)
        case .maximum(let value): (left, type, right) = (.evaluatedObject, .lessThanOrEqualTo, value)
        case .minimumLength(let length): (left, type, right) = (.keyPath("length"), .greaterThanOrEqualTo, .integer(Int64(length)))
        case .maximumLength(let length): (left, type, right) = (.keyPath("length"), .lessThanOrEqualTo, .integer(Int64(length)))
        case .pattern(let pattern): (left, type, right) = (.evaluatedObject, .matches, .string(pattern))
        }
        return try encodePredicate(.comparison(StoreComparison(left, type, .constant(right))))
    }
}
