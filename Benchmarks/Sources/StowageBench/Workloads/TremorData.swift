import Foundation

/// The rows the SQLite workloads write and read: earthquakes with ten attributes (four
/// doubles, a date, three strings, an integer and a boolean). Row `i` is a pure function of
/// `i`, so every side sees the same data and a million rows can be streamed without being
/// held in memory.
struct TremorRow {
    var magnitude: Double
    var depth: Double
    var latitude: Double
    var longitude: Double
    /// Seconds since 1970.
    var time: Double
    var place: String
    var code: String
    var status: String
    var significance: Int64
    var tsunami: Bool
}

enum TremorData {
    static let places = ["Alaska", "California", "Chile", "Japan", "Indonesia", "Iceland", "Nevada", "Tonga"]
    static let statuses = ["reviewed", "automatic", "deleted"]
    static let firstTime = 1_600_000_000.0

    /// Row `index`: magnitude uniform in 0..<8, latitude in -90..<90, longitude in -180..<180,
    /// time in a span of about three years at 0.1 s resolution.
    static func row(_ index: Int) -> TremorRow {
        var state = UInt64(index) &* 0x9E37_79B9_7F4A_7C15 &+ 0x2545_F491_4F6C_DD1D
        func next() -> UInt64 {
            // splitmix64
            state = state &+ 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let magnitude = Double(next() % 8_000) / 1_000
        let depth = Double(next() % 700_000) / 1_000
        let latitude = Double(next() % 1_800_000) / 10_000 - 90
        let longitude = Double(next() % 3_600_000) / 10_000 - 180
        let time = firstTime + Double(next() % 1_000_000_000) / 10
        let place = "\(next() % 200) km N of \(places[Int(next() % UInt64(places.count))])"
        let code = "us" + String(next() % 78_364_164_096, radix: 36)  // up to 7 base-36 digits
        let status = statuses[Int(next() % UInt64(statuses.count))]
        let significance = Int64(next() % 1_000)
        let tsunami = next() % 10 == 0
        return TremorRow(
            magnitude: magnitude, depth: depth, latitude: latitude, longitude: longitude, time: time,
            place: place, code: code, status: status, significance: significance, tsunami: tsunami)
    }

    static func rows(_ count: Int) -> [TremorRow] {
        (0..<count).map(row)
    }
}

/// What a full read of the rows adds up to: every attribute of every row contributes, so a
/// read that skipped a row or a column, or decoded one wrongly, does not match.
struct TremorChecksum: CustomStringConvertible {
    var count = 0
    var significance: Int64 = 0
    var tsunamis = 0
    /// UTF-8 bytes of place, code and status.
    var textBytes = 0
    /// magnitude + depth + latitude + longitude.
    var measures = 0.0
    /// Seconds since 1970.
    var times = 0.0

    init() {}

    init<Rows: Sequence<TremorRow>>(_ rows: Rows) {
        for row in rows { add(row) }
    }

    mutating func add(_ row: TremorRow) {
        add(magnitude: row.magnitude, depth: row.depth, latitude: row.latitude, longitude: row.longitude, time: row.time,
            place: row.place, code: row.code, status: row.status, significance: row.significance, tsunami: row.tsunami)
    }

    @inline(__always)
    mutating func add(
        magnitude: Double, depth: Double, latitude: Double, longitude: Double, time: Double,
        place: String, code: String, status: String, significance: Int64, tsunami: Bool
    ) {
        count += 1
        self.significance += significance
        tsunamis += tsunami ? 1 : 0
        textBytes += place.utf8.count + code.utf8.count + status.utf8.count
        measures += magnitude + depth + latitude + longitude
        times += time
    }

    /// Equal counts and integer sums; floating-point sums equal to within rounding (dates go
    /// through seconds since 2001 in the Core Data layout, and rows may come in another order).
    func matches(_ other: TremorChecksum) -> Bool {
        func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-10 * max(1, abs(a), abs(b)) }
        return count == other.count && significance == other.significance && tsunamis == other.tsunamis
            && textBytes == other.textBytes && close(measures, other.measures) && close(times, other.times)
    }

    /// Throws unless `self` (what a workload read) matches `expected`.
    func check(against expected: TremorChecksum, _ what: String) throws {
        guard matches(expected) else { throw BenchmarkError.wrongResult("\(what): read \(self), expected \(expected)") }
    }

    var description: String {
        "\(count) rows (significance \(significance), tsunamis \(tsunamis), text \(textBytes) B, measures \(measures), times \(times))"
    }
}
