import Foundation

extension CompiledModelArchiver {
    /// An `NSFetchedPropertyDescription` with its `NSFetchRequest`.
    ///
    /// - Throws: ``Unsupported`` for a predicate the archive has no form for.
    mutating func encodeFetchedProperty(_ fetched: FetchedPropertyDescription, entity reference: UInt64) throws -> UInt64 {
        let request = try encodeFetchRequest(fetched.fetchRequest)
        var flags: Int64 = 0x1 | 0x2 | 0x10 | 0x20 | 0x80
        var fields: [String: PropertyListValue] = [
            "NSPropertyName": try string(fetched.name), "NSEntity": .uid(reference), "NSFetchRequest": .uid(request),
            "NSRenamingIdentifier": try string(fetched.name), "NSIsOptional": .boolean(true),
        ]
        if fetched.userInfo.isEmpty { flags |= 0x40 } else { fields["NSUserInfo"] = try userInfo(fetched.userInfo) }
        fields["_P"] = .integer(flags)
        return builder.add("NSFetchedPropertyDescription", superclasses: ["NSPropertyDescription"], fields: fields)
    }

    /// An `NSFetchRequest`: entity, predicate, limits, result type and the `NSFetchRequestFlags`
    /// bits (1 distinct, 2 sub-entities, 4 property values, 8 faults, 0x10 pending changes).
    mutating func encodeFetchRequest(_ request: StoreFetchRequest) throws -> UInt64 {
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
        let predicate = try request.predicate.map { try encodePredicate($0) } ?? 0
        return builder.add("NSFetchRequest", superclasses: ["NSPersistentStoreRequest"], fields: [
            "NSEntity": .uid(entityRefs[request.entityName] ?? 0), "NSPredicate": .uid(predicate),
            "NSFetchLimit": .integer(Int64(request.fetchLimit)), "NSFetchOffset": .integer(Int64(request.fetchOffset)),
            "NSBatchSize": .integer(Int64(request.fetchBatchSize)), "NSResultType": .integer(resultType),
            "NSHasFetchRequestFlags": .boolean(true), "NSFetchRequestFlags": .integer(flags),
            "NSSortDescriptors": .uid(0), "NSValuesToFetch": .uid(0), "NSValuesToGroupBy": .uid(0), "NSHavingPredicate": .uid(0),
            "NSRelationshipKeyPathsForPrefetching": .uid(0),
        ])
    }

    /// An `NSPredicate`: true/false, compound (`NSCompoundPredicateType` 0 NOT, 1 AND, 2 OR) or
    /// comparison (`NSPredicateOperator` with `NSOperatorType`, `NSModifier`, `NSFlags`).
    mutating func encodePredicate(_ predicate: StorePredicate) throws -> UInt64 {
        switch predicate {
        case .constant(let value):
            return builder.add(value ? "NSTruePredicate" : "NSFalsePredicate", superclasses: ["NSPredicate"], fields: [:])
        case .and(let parts): return try compound(1, parts)
        case .or(let parts): return try compound(2, parts)
        case .not(let part): return try compound(0, [part])
        case .comparison(let comparison):
            let code: Int64
            let operatorClass: String
            switch comparison.operator {
            case .lessThan: (code, operatorClass) = (0, "NSEqualityPredicateOperator")
            case .lessThanOrEqualTo: (code, operatorClass) = (1, "NSEqualityPredicateOperator")
            case .greaterThan: (code, operatorClass) = (2, "NSEqualityPredicateOperator")
            case .greaterThanOrEqualTo: (code, operatorClass) = (3, "NSEqualityPredicateOperator")
            case .equalTo: (code, operatorClass) = (4, "NSEqualityPredicateOperator")
            case .notEqualTo: (code, operatorClass) = (5, "NSEqualityPredicateOperator")
            case .matches: (code, operatorClass) = (6, "NSLikePredicateOperator")
            case .like: (code, operatorClass) = (7, "NSLikePredicateOperator")
            case .beginsWith: (code, operatorClass) = (8, "NSSubstringPredicateOperator")
            case .endsWith: (code, operatorClass) = (9, "NSSubstringPredicateOperator")
            case .in: (code, operatorClass) = (10, "NSInPredicateOperator")
            case .contains: (code, operatorClass) = (99, "NSSubstringPredicateOperator")
            case .between: (code, operatorClass) = (100, "NSBetweenPredicateOperator")
            }
            let modifier: Int64 = comparison.modifier == .all ? 1 : comparison.modifier == .any ? 2 : 0
            let operation = builder.add(operatorClass, superclasses: ["NSPredicateOperator"], fields: [
                "NSOperatorType": .integer(code), "NSModifier": .integer(modifier), "NSFlags": .integer(Int64(comparison.options.rawValue)),
            ])
            let left = try encodeExpression(comparison.left)
            let right = try encodeExpression(comparison.right)
            return builder.add("NSComparisonPredicate", superclasses: ["NSPredicate"], fields: [
                "NSLeftExpression": .uid(left), "NSRightExpression": .uid(right), "NSPredicateOperator": .uid(operation),
            ])
        }
    }

    private mutating func compound(_ type: Int64, _ parts: [StorePredicate]) throws -> UInt64 {
        var references: [UInt64] = []
        for part in parts { references.append(try encodePredicate(part)) }
        return builder.add("NSCompoundPredicate", superclasses: ["NSPredicate"], fields: [
            "NSCompoundPredicateType": .integer(type), "NSSubpredicates": array(references, mutable: true),
        ])
    }

    /// An `NSExpression`: constant, `SELF`, variable, key path, aggregate or function.
    ///
    /// - Throws: ``Unsupported`` for `SUBQUERY` and conditionals.
    mutating func encodeExpression(_ expression: StoreExpression) throws -> UInt64 {
        switch expression {
        case .constant(let constant):
            guard let archived = Self.archivedValue(constant) else { throw Unsupported(description: "the constant \(constant) has no archived form") }
            return builder.add("NSConstantValueExpression", superclasses: ["NSExpression"], fields: [
                "NSConstantValue": try value(archived), "NSExpressionType": .integer(0),
            ])
        case .evaluatedObject:
            return selfExpression()
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
            guard case .constant(.string(let selector)) = arguments[1] else {
                throw Unsupported(description: "FUNCTION with a selector that is not a string constant")
            }
            return try function(selector, operand: try encodeExpression(arguments[0]), arguments: Array(arguments.dropFirst(2)))
        case .function(let name, let arguments):
            return try function(name, operand: selfExpression(), arguments: arguments)
        case .subquery:
            throw Unsupported(description: "SUBQUERY has no archived form in Stowage")
        case .conditional:
            throw Unsupported(description: "a conditional expression has no archived form in Stowage")
        }
    }

    private mutating func selfExpression() -> UInt64 {
        builder.add("NSSelfExpression", superclasses: ["NSExpression"], fields: ["NSExpressionType": .integer(1)])
    }

    private mutating func function(_ selector: String, operand: UInt64, arguments: [StoreExpression]) throws -> UInt64 {
        var references: [UInt64] = []
        for argument in arguments { references.append(try encodeExpression(argument)) }
        return builder.add("NSFunctionExpression", superclasses: ["NSExpression"], fields: [
            "NSOperand": .uid(operand), "NSSelectorName": try string(selector), "NSArguments": array(references, mutable: true),
            "NSExpressionType": .integer(4),
        ])
    }

    /// A key path as Core Data archives it: `valueForKey:` on `SELF` with a key path specifier.
    private mutating func keyPath(_ path: String, on base: UInt64? = nil) throws(PropertyListError) -> UInt64 {
        let operand = base ?? selfExpression()
        let specifier = builder.add("NSKeyPathSpecifierExpression", superclasses: ["NSExpression"], fields: [
            "NSKeyPath": try string(path), "NSExpressionType": .integer(10),
        ])
        return builder.add("NSKeyPathExpression", superclasses: ["NSFunctionExpression", "NSExpression"], fields: [
            "NSOperand": .uid(operand), "NSSelectorName": try string("valueForKey:"), "NSArguments": array([specifier], mutable: true),
            "NSExpressionType": .integer(3),
        ])
    }

    /// A derivation expression as written in a model file: `now()`, `name:(key.path)`, or a key path.
    mutating func encodeDerivation(_ text: String) throws(PropertyListError) -> UInt64 {
        if text.hasSuffix(")"), let open = text.firstIndex(of: "(") {
            let selector = String(text[..<open])
            let inner = String(text[text.index(after: open)..<text.index(before: text.endIndex)])
            var arguments: [UInt64] = []
            if !inner.isEmpty { arguments.append(try keyPath(inner)) }
            return builder.add("NSFunctionExpression", superclasses: ["NSExpression"], fields: [
                "NSOperand": .uid(selfExpression()), "NSSelectorName": try string(selector), "NSArguments": array(arguments, mutable: true),
                "NSExpressionType": .integer(4),
            ])
        }
        return try keyPath(text)
    }

    /// A validation rule as the comparison Xcode writes for it (`SELF >= 1`, `length <= 20`,
    /// `SELF MATCHES "…"`).
    mutating func encodeRule(_ rule: AttributeValidationRule) throws(PropertyListError) -> UInt64 {
        let (left, type, right): (StoreExpression, StoreComparison.Operator, StoreValue)
        switch rule {
        case .minimum(let value): (left, type, right) = (.evaluatedObject, .greaterThanOrEqualTo, value)
        case .maximum(let value): (left, type, right) = (.evaluatedObject, .lessThanOrEqualTo, value)
        case .minimumLength(let length): (left, type, right) = (.keyPath("length"), .greaterThanOrEqualTo, .integer(Int64(length)))
        case .maximumLength(let length): (left, type, right) = (.keyPath("length"), .lessThanOrEqualTo, .integer(Int64(length)))
        case .pattern(let pattern): (left, type, right) = (.evaluatedObject, .matches, .string(pattern))
        }
        do {
            return try encodePredicate(.comparison(StoreComparison(left, type, .constant(right))))
        } catch let error as PropertyListError {
            throw error
        } catch {
            // Rules hold numbers, dates, lengths and patterns, which always have an archived form.
            throw PropertyListError(.unsupported, "the validation rule \(rule) cannot be archived: \(error)")
        }
    }
}
