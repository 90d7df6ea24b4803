/// One entity's stored properties as a save validates them, in property order, worked out once
/// per entity and save instead of by a cast and several lookups per property of every object.
///
/// For example (inside a save):
///
/// ```swift
/// var plans = ValidationPlans()
/// let plan = plans.plan(for: object.entity)
/// ManagedObjectContext.appendModelRuleErrors(of: object, plan: plan, relationships: true, to: &errors)
/// ```
final class ValidationPlan {
    enum Kind {
        /// A stored attribute.
        case attribute
        case toMany
        /// A to-one relationship that must hold an object.
        case requiredToOne
    }

    /// One property to check. The description is held `unowned(unsafe)`: the plan holds the
    /// entity, which holds its properties, for as long as the plan is used — and copying a check
    /// out of the array (once per property of every object) then costs no reference counting.
    struct Check {
        let kind: Kind
        let index: Int
        unowned(unsafe) let property: PropertyDescription
        let name: String
        /// For an attribute: its type.
        let type: AttributeType?
        /// For an attribute: the value case its type accepts as it is (``HeldValueCase``).
        let heldCase: HeldValueCase
        /// For an attribute: neither optional nor derived (a derived attribute's value is the
        /// store's to compute).
        let isRequired: Bool
        /// For an attribute: whether it has validation rules.
        let hasRules: Bool
    }

    let entity: EntityDescription
    let checks: ContiguousArray<Check>

    init(entity: EntityDescription) {
        self.entity = entity
        var checks: ContiguousArray<Check> = []
        for (index, property) in entity.properties.enumerated() where !property.isTransient {
            if let attribute = property as? AttributeDescription {
                checks.append(Check(
                    kind: .attribute, index: index, property: attribute, name: attribute.name, type: attribute.attributeType,
                    heldCase: HeldValueCase(attribute.attributeType),
                    isRequired: !attribute.isOptional && attribute.derivation == nil, hasRules: !attribute.validationRules.isEmpty))
            } else if let relationship = property as? RelationshipDescription {
                if relationship.isToMany {
                    checks.append(Check(kind: .toMany, index: index, property: relationship, name: relationship.name, type: nil, heldCase: .none, isRequired: false, hasRules: false))
                } else if !relationship.isOptional {
                    checks.append(Check(kind: .requiredToOne, index: index, property: relationship, name: relationship.name, type: nil, heldCase: .none, isRequired: true, hasRules: false))
                }
            }
        }
        self.checks = checks
    }
}

/// The validation plans of the entities one save meets (the objects of one entity usually
/// follow each other, so the last plan is checked first).
struct ValidationPlans {
    private var plans: [ObjectIdentifier: ValidationPlan] = [:]
    private var last: ValidationPlan?

    mutating func plan(for entity: EntityDescription) -> ValidationPlan {
        if let last, last.entity === entity { return last }
        let plan = plans[ObjectIdentifier(entity)] ?? ValidationPlan(entity: entity)
        plans[ObjectIdentifier(entity)] = plan
        last = plan
        return plan
    }
}
