import Foundation

/// The rows both sides insert and fetch: earthquakes with a magnitude, a place and a time,
/// generated deterministically so every run and every side sees the same data.
struct QuakeData {
    struct Quake {
        let magnitude: Double
        let place: String
        let time: Date
    }

    /// The fetch workloads' predicate: `magnitude > threshold`.
    static let magnitudeThreshold = 5.0

    let quakes: [Quake]

    /// How many quakes the fetch workloads must return.
    var matchingCount: Int { quakes.count { $0.magnitude > Self.magnitudeThreshold } }

    /// `count` quakes; magnitudes are uniform in 0..<8, so 37.5 % exceed the threshold.
    init(count: Int) {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 11
        }
        let places = ["Alaska", "California", "Chile", "Japan", "Indonesia", "Iceland", "Nevada", "Tonga"]
        let start = Date(timeIntervalSince1970: 1_600_000_000)
        quakes = (0..<count).map { _ in
            let magnitude = Double(next() % 8_000) / 1_000
            let place = "\(next() % 200) km N of \(places[Int(next() % UInt64(places.count))])"
            let time = start.addingTimeInterval(Double(next() % 100_000_000) / 10)
            return Quake(magnitude: magnitude, place: place, time: time)
        }
    }
}
