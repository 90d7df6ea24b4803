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
struct ValidationPlan {
    enum Check {
        /// A stored attribute: `isRequired` when it is neither optional nor derived (a derived
        /// attribute's value is the store's to compute).
        case attribute(index: Int, attribute: AttributeDescription, type: AttributeType, isRequired: Bool, hasRules: Bool)
        case toMany(index: Int, relationship: RelationshipDescription)
        /// A to-one relationship that must hold an object.
        case requiredToOne(index: Int, relationship: RelationshipDescription)
    }

    let entity: EntityDescription
    let checks: [Check]

    init(entity: EntityDescription) {
        self.entity = entity
        var checks: [Check] = []
        for (index, property) in entity.properties.enumerated() where !property.isTransient {
            if let attribute = property as? AttributeDescription {
                checks.append(.attribute(
                    index: index, attribute: attribute, type: attribute.attributeType,
                    isRequired: !attribute.isOptional && attribute.derivation == nil, hasRules: !attribute.validationRules.isEmpty))
            } else if let relationship = property as? RelationshipDescription {
                if relationship.isToMany {
                    checks.append(.toMany(index: index, relationship: relationship))
                } else if !relationship.isOptional {
                    checks.append(.requiredToOne(index: index, relationship: relationship))
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
