import Foundation

/// How a derived attribute (Core Data's `NSDerivedAttributeDescription`) is computed: the forms
/// Core Data's stores compute, resolved against the attribute's entity when the model is built.
///
/// The store computes the value when it saves — every built-in store, as Core Data's SQLite store
/// does with triggers — so a required derived attribute needs no value before the first save,
/// and the context reads the computed values back after each save.
///
/// For example:
///
/// ```swift
/// .attribute("commentCount", .integer64, derivation: "comments.@count")
/// .attribute("searchTitle", .string, derivation: "canonical:(title)")
/// .attribute("authorName", .string, derivation: "author.name")
/// .attribute("modified", .date, derivation: "now()")
/// // attribute.derivation == .count(relationship: "comments"), …
/// ```
public enum AttributeDerivation: Sendable, Hashable {
    /// `now()`: the time of the save that inserted or changed the object (in a `Double` or
    /// `Float` attribute, as seconds since 2001-01-01, as Core Data stores it).
    case now
    /// A copy of an attribute of the same object (`["title"]`) or of a to-one destination
    /// (`["author", "name"]`), optionally through a string function.
    case value(keyPath: [String], function: TextFunction?)
    /// `relationship.@count`: the number of members of a to-many relationship.
    case count(relationship: String)
    /// `relationship.@sum.key`, `@min`, `@max`: an aggregate of the members' attribute.
    case aggregate(Aggregate, relationship: String, key: String)

    /// The string functions a derivation may apply.
    public enum TextFunction: String, Sendable, Hashable {
        /// The copied string lowercased, as Core Data's `lowercase:`.
        case lowercase = "lowercase:"
        /// The copied string uppercased, as Core Data's `uppercase:`.
        case uppercase = "uppercase:"
        /// Case and diacritics folded, as Core Data's `canonical:`.
        case canonical = "canonical:"
    }

    /// The aggregates a derivation may take over a to-many relationship.
    public enum Aggregate: String, Sendable, Hashable {
        /// The aggregates, as in Core Data's derivation expressions:
        /// - `sum`: `@sum`, the total of the members' non-null values (0 when there are none).
        /// - `min`: `@min`, the smallest non-null value (nil when there are none).
        /// - `max`: `@max`, the largest non-null value (nil when there are none).
        case sum = "@sum", min = "@min", max = "@max"
    }

    /// The form of a derivation expression, before its keys are checked against an entity, or
    /// `nil` when the expression is not one Core Data computes.
    public init?(parsing expression: String) {
        guard let parsed = try? StoreExpression(format: expression) else { return nil }
        switch parsed {
        case .function(let name, let arguments) where (name == "now" || name == "now:") && arguments.isEmpty:
            self = .now
        case .function(let name, let arguments):
            guard let function = TextFunction(rawValue: name), arguments.count == 1,
                case .keyPath(let path) = arguments[0]
            else { return nil }
            let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard (1...2).contains(keys.count), keys.allSatisfy({ !$0.isEmpty && !$0.hasPrefix("@") }) else { return nil }
            self = .value(keyPath: keys, function: function)
        case .keyPath(let path):
            let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            switch keys.count {
            case 1 where !keys[0].isEmpty && !keys[0].hasPrefix("@"):
                self = .value(keyPath: keys, function: nil)
            case 2 where keys[1] == "@count":
                self = .count(relationship: keys[0])
            case 2 where !keys[1].hasPrefix("@"):
                self = .value(keyPath: keys, function: nil)
            case 3:
                guard let aggregate = Aggregate(rawValue: keys[1]), !keys[2].hasPrefix("@") else { return nil }
                self = .aggregate(aggregate, relationship: keys[0], key: keys[2])
            default:
                return nil
            }
        default:
            return nil
        }
    }

    /// The relationship the derivation reads through, if any.
    public var relationshipName: String? {
        switch self {
        case .now: nil
        case .value(let keys, _): keys.count == 2 ? keys[0] : nil
        case .count(let name), .aggregate(_, let name, _): name
        }
    }

    /// The attribute types `now()` derives: a `Date`, or the seconds since 2001-01-01 in a
    /// `Double` or `Float` (the same number Core Data's SQLite store writes in the column).
    public static let nowTypes: Set<AttributeType> = [.date, .double, .float]

    /// Checks the derivation's keys against the entity that owns `attribute`; a problem names
    /// the key that does not fit.
    func check(_ attribute: AttributeDescription, of entity: EntityDescription) -> String? {
        switch self {
        case .now:
            // Core Data's store writes now() as seconds since 2001, in a Double or Float attribute as in a Date one.
            return Self.nowTypes.contains(attribute.attributeType) ? nil : "now() derives a time, which a \(attribute.attributeType.name) attribute cannot hold"
        case .value(let keys, let function):
            var owner = entity
            if keys.count == 2 {
                guard let relationship = entity.relationshipsByName[keys[0]], !relationship.isToMany, let destination = relationship.destinationEntity else {
                    return "'\(keys[0])' is not a to-one relationship of \(entity.name)"
                }
                owner = destination
            }
            guard let source = owner.attributesByName[keys[keys.count - 1]], !source.isTransient else {
                return "'\(keys.joined(separator: "."))' is not a stored attribute"
            }
            if function != nil, source.attributeType != .string { return "\(function?.rawValue ?? "") applies to a String attribute" }
            return nil
        case .count(let name):
            guard let relationship = entity.relationshipsByName[name], relationship.isToMany else {
                return "'\(name)' is not a to-many relationship of \(entity.name)"
            }
            return nil
        case .aggregate(_, let name, let key):
            guard let relationship = entity.relationshipsByName[name], relationship.isToMany, let destination = relationship.destinationEntity else {
                return "'\(name)' is not a to-many relationship of \(entity.name)"
            }
            guard let source = destination.attributesByName[key], !source.isTransient else {
                return "'\(key)' is not a stored attribute of \(destination.name)"
            }
            return nil
        }
    }
}
