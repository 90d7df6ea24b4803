import Foundation
import StoreCore

extension ModelContentsReader {
    private static let attributeAttributes: Set<String> = [
        "name", "optional", "transient", "attributeType", "defaultValueString", "defaultDateTimeInterval",
        "minValueString", "maxValueString", "minDateTimeInterval", "maxDateTimeInterval", "regularExpressionString",
        "allowsExternalBinaryDataStorage", "valueTransformerName", "customClassName", "preserveAfterDeletion",
        "derived", "derivationExpression", "usesScalarValueType", "syncable", "indexed", "elementID",
        "renamingIdentifier", "versionHashModifier", "spotlightIndexingEnabled", "storedInTruthFile",
        "allowsCloudEncryption", "attributeValueClassName", "composite",
    ]

    /// `<attribute>`; `nil` (with a warning) for types Stowage has no counterpart for.
    mutating func readAttribute(_ element: ModelXMLElement) throws(ModelFileError) -> AttributeDescription? {
        checkAttributes(of: element, known: Self.attributeAttributes)
        let name = try required("name", of: element)
        // Xcode leaves `attributeType` out for an "Undefined" attribute, which Core Data allows
        // only on transient attributes.
        let typeName = element.attribute("attributeType") ?? "Undefined"
        let transformerName = element.attribute("valueTransformerName").flatMap { $0.isEmpty ? nil : $0 }
        let type: AttributeType
        switch typeName {
        case "Integer 16": type = .integer16
        case "Integer 32": type = .integer32
        case "Integer 64": type = .integer64
        case "Decimal": type = .decimal
        case "Double": type = .double
        case "Float": type = .float
        case "String": type = .string
        case "Boolean": type = .boolean
        case "Date": type = .date
        case "Binary": type = .binaryData
        case "UUID": type = .uuid
        case "URI": type = .uri
        case "ObjectID": type = .objectID
        case "Composite":
            return try readComposite(element, name: name)
        case "Undefined":
            guard flag("transient", of: element) else {
                warn(element, "attribute \(name) has no type (Undefined), which Core Data allows only on transient attributes; the attribute was left out")
                return nil
            }
            type = .undefined
        case "Transformable":
            // Core Data's default for a transformable attribute without a transformer name.
            type = .transformable(named: transformerName ?? "NSKeyedUnarchiveFromData")
        default:
            warn(element, "attribute \(name) has type '\(typeName)', which Stowage does not support; the attribute was left out")
            return nil
        }
        if let transformerName, typeName != "Transformable" {
            warn(element, "attribute \(name): valueTransformerName '\(transformerName)' applies only to Transformable attributes (Core Data ignores it on \(typeName)); ignored")
        }
        var rules: [AttributeValidationRule] = []
        let isLength = type == .string || type == .binaryData
        for (attributeName, isMinimum) in [("minValueString", true), ("maxValueString", false)] {
            guard let text = element.attribute(attributeName), !text.isEmpty else { continue }
            if isLength {
                guard let length = Int(text) else {
                    warn(element, "attribute \(name): \(attributeName) '\(text)' is not a length; ignored")
                    continue
                }
                rules.append(isMinimum ? .minimumLength(length) : .maximumLength(length))
            } else if let bound = Self.number(text, for: type) {
                rules.append(isMinimum ? .minimum(bound) : .maximum(bound))
            } else {
                warn(element, "attribute \(name): \(attributeName) '\(text)' is not a \(typeName) value; ignored")
            }
        }
        for (attributeName, isMinimum) in [("minDateTimeInterval", true), ("maxDateTimeInterval", false)] {
            guard let text = element.attribute(attributeName), !text.isEmpty else { continue }
            guard let seconds = Double(text) else {
                warn(element, "attribute \(name): \(attributeName) '\(text)' is not a number of seconds; ignored")
                continue
            }
            let bound = StoreValue.date(Date(timeIntervalSinceReferenceDate: seconds))
            rules.append(isMinimum ? .minimum(bound) : .maximum(bound))
        }
        if let pattern = element.attribute("regularExpressionString"), !pattern.isEmpty {
            rules.append(.pattern(pattern))
        }
        let isDerived = flag("derived", of: element)
        var derivation = element.attribute("derivationExpression")
        if !isDerived, derivation != nil {
            warn(element, "attribute \(name) has a derivationExpression but is not marked derived; it is stored as given")
        }
        if isDerived, derivation == nil {
            warn(element, "attribute \(name) is derived but has no derivationExpression; it is stored as given")
        }
        if let expression = derivation, AttributeDerivation(parsing: expression) == nil {
            warn(element, "attribute \(name): derivation '\(expression)' is not one Core Data computes; the attribute is stored as given")
            derivation = nil
        } else if !isDerived {
            derivation = nil
        }
        return AttributeDescription(
            name: name, type: type, isOptional: flag("optional", of: element),
            defaultValue: defaultValue(of: element, name: name, type: type, typeName: typeName),
            isTransient: flag("transient", of: element), validationRules: rules,
            allowsExternalBinaryDataStorage: flag("allowsExternalBinaryDataStorage", of: element),
            preservesValueInHistoryOnDeletion: flag("preserveAfterDeletion", of: element),
            userInfo: userInfo(in: element), renamingIdentifier: element.attribute("elementID") ?? element.attribute("renamingIdentifier"),
            versionHashModifier: element.attribute("versionHashModifier"),
            customClassName: element.attribute("customClassName") ?? element.attribute("attributeValueClassName"),
            derivationExpression: derivation)
    }

    /// A `Composite` attribute: its elements are the `<attribute>`s of the `<composite>`
    /// definition it names. `nil` (with a warning) when the definition is missing.
    private mutating func readComposite(_ element: ModelXMLElement, name: String) throws(ModelFileError) -> AttributeDescription? {
        guard let typeName = element.attribute("composite"), let definition = compositeDefinitions[typeName] else {
            let named = element.attribute("composite").map { "<composite name=\"\($0)\">, which the model does not define" } ?? "no <composite>"
            warn(element, "attribute \(name) is Composite but names \(named); the attribute was left out")
            return nil
        }
        guard !compositesBeingRead.contains(typeName) else {
            throw error(element, "composite \(typeName) contains itself (through attribute \(name))")
        }
        compositesBeingRead.append(typeName)
        defer { compositesBeingRead.removeLast() }
        var elements: [AttributeDescription] = []
        for child in definition.children {
            guard child.name == "attribute" else {
                warn(child, "unknown element <\(child.name)> in <composite> was ignored")
                continue
            }
            if let attribute = try readAttribute(child) { elements.append(attribute) }
        }
        return CompositeAttributeDescription(
            name: name, elements: elements, isOptional: flag("optional", of: element), userInfo: userInfo(in: element),
            renamingIdentifier: element.attribute("elementID") ?? element.attribute("renamingIdentifier"),
            versionHashModifier: element.attribute("versionHashModifier"))
    }

    /// The `<userInfo>` child of a property, warning about any other child.
    mutating func userInfo(in element: ModelXMLElement) -> [String: String] {
        var info: [String: String] = [:]
        for child in element.children {
            if child.name == "userInfo" {
                info = readUserInfo(child)
            } else {
                warn(child, "unknown element <\(child.name)> in <\(element.name)> was ignored")
            }
        }
        return info
    }

    /// The default value: `defaultValueString` read as the type, or `defaultDateTimeInterval`.
    private mutating func defaultValue(of element: ModelXMLElement, name: String, type: AttributeType, typeName: String) -> StoreValue {
        if type == .date, let text = element.attribute("defaultDateTimeInterval"), !text.isEmpty {
            if let seconds = Double(text) { return .date(Date(timeIntervalSinceReferenceDate: seconds)) }
            warn(element, "attribute \(name): defaultDateTimeInterval '\(text)' is not a number; no default")
            return .null
        }
        guard let text = element.attribute("defaultValueString") else { return .null }
        let value: StoreValue?
        switch type {
        case .integer16, .integer32, .integer64, .decimal, .double, .float:
            value = Self.number(text, for: type)
        case .string:
            value = .string(text)
        case .boolean:
            // Xcode writes YES/NO, or a number ("0.0", "1.0") when the default came from a number field.
            switch text.trimmingCharacters(in: .whitespaces) {
            case "YES", "yes", "true", "TRUE": value = .boolean(true)
            case "NO", "no", "false", "FALSE": value = .boolean(false)
            case let number: value = Double(number).map { StoreValue.boolean($0 != 0) }
            }
        case .uuid:
            value = UUID(uuidString: text).map(StoreValue.uuid)
        case .uri:
            value = URL(string: text).map(StoreValue.uri)
        case .date:
            // Seconds since the reference date (2001-01-01 UTC), as Core Data stores dates.
            value = Double(text.trimmingCharacters(in: .whitespaces)).map { StoreValue.date(Date(timeIntervalSinceReferenceDate: $0)) }
        case .binaryData, .transformable, .objectID, .undefined, .composite:
            value = nil
        }
        guard let value, type.coerce(value) != nil else {
            warn(element, "attribute \(name): default '\(text)' is not a \(typeName) value; no default")
            return .null
        }
        return value
    }

    /// A number written in a model file, as a value of `type` (`nil` when it is not one).
    static func number(_ text: String, for type: AttributeType) -> StoreValue? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch type {
        case .integer16, .integer32, .integer64:
            if let integer = Int64(trimmed) { return type.coerce(.integer(integer)) }
            if let double = Double(trimmed), let integer = Int64(exactly: double) { return type.coerce(.integer(integer)) }
            return nil
        case .decimal:
            return Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX")).map(StoreValue.decimal)
        case .double:
            return Double(trimmed).map(StoreValue.double)
        case .float:
            return Float(trimmed).map(StoreValue.float)
        default:
            return Double(trimmed).map(StoreValue.double)
        }
    }
}
