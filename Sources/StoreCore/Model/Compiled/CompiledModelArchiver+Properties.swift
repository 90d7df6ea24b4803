import Foundation

extension CompiledModelArchiver {
    /// The fields every `NSPropertyDescription` has. `_P` is Core Data's flag word: 0x2 optional,
    /// 0x8 transient, 0x400 ordered, and bits 0x1, 0x10, 0x20, 0x40 and 0x80 set unless the
    /// property has validation rules (0x10, 0x20), user info (0x40) or a version hash modifier
    /// (0x80) — as in every archive Core Data wrote in the fixtures.
    func propertyFields(_ property: PropertyDescription, entity: EntityDescription) -> (fields: [String: PropertyListValue], flags: Int64) {
        var flags: Int64 = 0x1 | 0x10 | 0x20
        var fields: [String: PropertyListValue] = ["NSEntity": .uid(entityRefs[entity.name] ?? 0)]
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
        if property.userInfo.isEmpty { flags |= 0x40 }
        if property.versionHashModifier == nil { flags |= 0x80 }
        return (fields, flags)
    }

    /// Names, renaming identifier, version hash modifier and user info, added to `fields`.
    mutating func addNames(of property: PropertyDescription, to fields: inout [String: PropertyListValue]) throws(PropertyListError) {
        fields["NSPropertyName"] = try string(property.name)
        // Core Data records the name when there is no renaming identifier.
        fields["NSRenamingIdentifier"] = try string(property.renamingIdentifier ?? property.name)
        if let modifier = property.versionHashModifier { fields["NSVersionHashModifier"] = try string(modifier) }
        if !property.userInfo.isEmpty { fields["NSUserInfo"] = try userInfo(property.userInfo) }
    }

    /// Writes an attribute or relationship at `reference`; `false` (and a line in ``leftOut``)
    /// for a property the archive has no form for.
    mutating func encodeProperty(
        _ property: PropertyDescription, entity: EntityDescription, isIndexed: Bool, at reference: UInt64
    ) throws(PropertyListError) -> Bool {
        var (fields, flags) = propertyFields(property, entity: entity)
        try addNames(of: property, to: &fields)
        if let attribute = property as? AttributeDescription {
            guard let (code, valueClass) = Self.typeCode(attribute.attributeType) else {
                leftOut.append("attribute \(entity.name).\(attribute.name): a \(attribute.attributeType.name) attribute has no compiled form in Stowage")
                return false
            }
            fields["NSAttributeType"] = .integer(code)
            fields["NSAttributeValueClassName"] = try string(attribute.customClassName ?? valueClass)
            if let defaultValue = Self.archivedValue(attribute.defaultValue) {
                fields["NSDefaultValue"] = try value(defaultValue)
            } else {
                leftOut.append("the default value of attribute \(entity.name).\(attribute.name) (a \(attribute.defaultValue.kindName)): it has no archived form")
                fields["NSDefaultValue"] = .uid(0)
            }
            fields["NSValueTransformerName"] = try string(attribute.valueTransformerName)
            var flagBits: Int64 = 0
            if attribute.allowsExternalBinaryDataStorage { flagBits |= 0x4 }
            if attribute.preservesValueInHistoryOnDeletion { flagBits |= 0x10 }
            fields["NSFlagsKey"] = .integer(flagBits)
            if isIndexed { fields["NSIsIndexed"] = .boolean(true) }
            if !attribute.validationRules.isEmpty {
                var predicates: [UInt64] = []
                var warnings: [UInt64] = []
                for rule in attribute.validationRules {
                    predicates.append(try encodeRule(rule))
                    warnings.append(try builder.value(1550))
                }
                fields["NSValidationPredicates"] = array(predicates)
                fields["NSValidationWarnings"] = array(warnings)
                flags &= ~0x30
            }
            fields["_P"] = .integer(flags)
            var className = "NSAttributeDescription"
            var superclasses = ["NSPropertyDescription"]
            if let expression = attribute.derivationExpression {
                className = "NSDerivedAttributeDescription"
                superclasses = ["NSAttributeDescription", "NSPropertyDescription"]
                fields["NSDerivationExpression"] = .uid(try encodeDerivation(expression))
            }
            builder.set(reference, className, superclasses: superclasses, fields: fields)
        } else if let relationship = property as? RelationshipDescription {
            fields["_P"] = .integer(flags)
            fields["NSDestinationEntity"] = .uid(entityRefs[relationship.destinationEntityName] ?? 0)
            fields["_NSDestinationEntityName"] = try string(relationship.destinationEntityName)
            fields["NSInverseRelationship"] = .uid(relationship.inverseName.flatMap { propertyRefs["\(relationship.destinationEntityName).\($0)"] } ?? 0)
            fields["_NSInverseRelationshipName"] = try string(relationship.inverseName)
            fields["NSMinCount"] = .integer(Int64(relationship.minCount))
            fields["NSMaxCount"] = .integer(Int64(relationship.isToMany ? relationship.maxCount : 1))
            fields["NSDeleteRule"] = .integer(Self.deleteRuleCode(relationship.deleteRule))
            builder.set(reference, "NSRelationshipDescription", superclasses: ["NSPropertyDescription"], fields: fields)
        } else {
            leftOut.append("property \(entity.name).\(property.name): a \(type(of: property)) has no compiled form")
            return false
        }
        return true
    }

    /// `NSDeleteRule`: 0 no action, 1 nullify, 2 cascade, 3 deny.
    static func deleteRuleCode(_ rule: DeleteRule) -> Int64 {
        switch rule {
        case .noAction: 0
        case .nullify: 1
        case .cascade: 2
        case .deny: 3
        }
    }

    /// `NSAttributeType` and the value class Core Data records; `nil` for a composite attribute.
    static func typeCode(_ type: AttributeType) -> (Int64, String?)? {
        switch type {
        case .undefined: (0, nil)
        case .integer16: (100, "NSNumber")
        case .integer32: (200, "NSNumber")
        case .integer64: (300, "NSNumber")
        case .decimal: (400, "NSDecimalNumber")
        case .double: (500, "NSNumber")
        case .float: (600, "NSNumber")
        case .string: (700, "NSString")
        case .boolean: (800, "NSNumber")
        case .date: (900, "NSDate")
        case .binaryData: (1000, "NSData")
        case .uuid: (1100, "NSUUID")
        case .uri: (1200, "NSURL")
        case .transformable: (1800, nil)
        case .objectID: (2000, nil)
        case .composite: nil
        }
    }

    /// A value as ``KeyedArchive`` archives it: `.some(nil)` for `null`, `nil` for a value with
    /// no archived form (an object ID, a date that is not finite).
    static func archivedValue(_ value: StoreValue) -> Any?? {
        switch value {
        case .null: .some(nil)
        case .integer(let integer): integer
        case .double(let double): double
        case .float(let float): Double(float)
        case .decimal(let decimal): decimal
        case .string(let string): string
        case .boolean(let bool): bool
        case .date(let date): date.timeIntervalSinceReferenceDate.isFinite ? date : nil
        case .data(let data): data
        case .uuid(let uuid): uuid
        case .uri(let url): url
        default: nil
        }
    }
}
