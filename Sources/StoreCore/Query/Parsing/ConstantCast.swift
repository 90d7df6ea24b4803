import Foundation

/// `CAST(value, 'Type')`: folded into a constant when the value is a constant, otherwise kept
/// as the function `castObject:toType:`.
///
/// Besides Core Data's `CAST(interval, "NSDate")`, the printer uses casts to write the values that
/// have no literal of their own (UUIDs, URLs, data, decimals, floats, object IDs), so that every
/// constant prints as text that parses back to the same value.
package enum ConstantCast {
    package static let functionName = "castObject:toType:"

    static func fold(_ value: StoreExpression, _ type: StoreExpression) -> StoreExpression {
        guard case .constant(let constant) = value, case .constant(.string(let typeName)) = type,
            let folded = cast(constant, to: typeName)
        else { return .function(functionName, [value, type]) }
        return .constant(folded)
    }

    /// The value converted to the named type, or `nil` when it does not convert.
    package static func cast(_ value: StoreValue, to typeName: String) -> StoreValue? {
        switch (typeName, value) {
        case ("NSDate", _):
            if case .date = value { return value }
            if let seconds = value.numericValue, !value.isBoolean, !seconds.isNaN { return .date(Date(timeIntervalSinceReferenceDate: seconds)) }
            if case .string(let text) = value, let date = try? Date(text, strategy: .iso8601) { return .date(date) }
            return nil
        case ("NSNumber", .string(let text)):
            if let integer = Int64(text) { return .integer(integer) }
            // NaN is refused: it equals nothing, not even itself, so it could not print back.
            guard let number = Double(text), !number.isNaN else { return nil }
            return .double(number)
        case ("NSNumber", _):
            if case .date(let date) = value { return .double(date.timeIntervalSinceReferenceDate) }
            guard value.numericValue != nil else { return nil }
            return value
        case ("NSString", .string):
            return value
        case ("NSString", .integer(let v)):
            return .string(String(v))
        case ("NSString", .double(let v)):
            return .string(String(v))
        case ("NSDecimalNumber", .string(let text)):
            guard let number = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), !number.isNaN else { return nil }
            return .decimal(number)
        case ("Float", .string(let text)):
            guard let number = Float(text), !number.isNaN else { return nil }
            return .float(number)
        case ("NSUUID", .string(let text)):
            return UUID(uuidString: text).map(StoreValue.uuid)
        case ("NSURL", .string(let text)):
            return URL(string: text).map(StoreValue.uri)
        case ("NSData", .string(let text)):
            return Data(base64Encoded: text).map(StoreValue.data)
        case ("NSManagedObjectID", .string(let text)):
            return URL(string: text).flatMap(ManagedObjectID.init(uriRepresentation:)).map(StoreValue.objectID)
        default:
            return nil
        }
    }
}

private extension StoreValue {
    var isBoolean: Bool {
        if case .boolean = self { return true }
        return false
    }
}
