import Foundation

extension Decimal {
    /// The `Double` nearest to this decimal, as parsing its digits gives it (and as SQLite's
    /// `CAST(… AS REAL)` and PostgreSQL's `::double precision` give it). Foundation's
    /// `NSDecimalNumber.doubleValue` can be a unit or more off in the last place for long
    /// decimals (12345678901234567.0123456789 becomes 12345678901234570), so a query constant
    /// converted that way missed the value a store holds.
    ///
    /// For example:
    ///
    /// ```swift
    /// Decimal(string: "12345678901234567.0123456789")?.nearestDouble   // 12345678901234568
    /// ```
    package var nearestDouble: Double {
        Double(description) ?? NSDecimalNumber(decimal: self).doubleValue
    }
}
