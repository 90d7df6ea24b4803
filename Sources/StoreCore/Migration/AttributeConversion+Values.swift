import Foundation

extension AttributeConversion {
    /// The value converted to the destination type, as SQLite's `CAST` converts it (so a store
    /// migrated in place and one migrated in memory hold the same values): a fraction becomes an
    /// integer by truncation toward zero, a number becomes its shortest decimal text, a Boolean
    /// `1` or `0`. `nil` passes as `nil`.
    ///
    /// For example:
    ///
    /// ```swift
    /// try AttributeConversion(from: .double, to: .integer32).convert(.double(4.7))   // .integer(4)
    /// try AttributeConversion(from: .integer64, to: .string).convert(.integer(12))  // .string("12")
    /// ```
    ///
    /// - Throws: ``MigrationError`` (`migrationFailed`) for a value the destination
    ///   type cannot hold (an integer out of its range, a non-finite number to an integer).
    public func convert(_ value: StoreValue) throws(MigrationError) -> StoreValue {
        if value.isNull { return .null }
        switch destinationType {
        case .string:
            switch value {
            case .integer(let number): return .string(String(number))
            case .double(let number): return .string(Self.text(number))
            case .float(let number): return .string(Self.text(Double(number)))
            case .decimal(let number): return .string(number.description)
            case .boolean(let flag): return .string(flag ? "1" : "0")
            case .string: return value
            default: break
            }
        case .integer16, .integer32, .integer64, .boolean:
            let integer: Int64?
            switch value {
            case .integer(let number): integer = number
            case .boolean(let flag): integer = flag ? 1 : 0
            case .double(let number): integer = number.isFinite ? Int64(exactly: number.rounded(.towardZero)) : nil
            case .float(let number): integer = number.isFinite ? Int64(exactly: Double(number).rounded(.towardZero)) : nil
            case .decimal(let number): integer = Int64(exactly: number.nearestDouble.rounded(.towardZero))
            default: integer = nil
            }
            if let integer {
                if destinationType == .boolean { return .boolean(integer != 0) }
                if let converted = destinationType.coerce(.integer(integer)) { return converted }
            }
        case .double, .float, .decimal:
            let number: Double?
            switch value {
            case .integer(let integer): number = Double(integer)
            case .boolean(let flag): number = flag ? 1 : 0
            case .double(let double): number = double
            case .float(let float): number = Double(float)
            case .decimal(let decimal): number = decimal.nearestDouble
            default: number = nil
            }
            if let number, let converted = destinationType.coerce(.double(number)) { return converted }
        default:
            break
        }
        throw MigrationError(.migrationFailed, "the value \(value) cannot become \(destinationType.name)")
    }

    /// SQLite's text of a real: integral values keep a `.0`, others the shortest round-trip digits.
    private static func text(_ number: Double) -> String {
        number.isFinite && number == number.rounded() && abs(number) < 1e15 ? String(format: "%.1f", number) : "\(number)"
    }
}
