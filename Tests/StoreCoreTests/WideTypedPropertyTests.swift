import Foundation
import StoreCore
import XCTest

/// A class with more typed properties than the lock-free index table has slots.
final class Wide: ManagedObject {
    @Attribute var a0: Int64
    @Attribute var a1: Int64
    @Attribute var a2: Int64
    @Attribute var a3: Int64
    @Attribute var a4: Int64
    @Attribute var a5: Int64
    @Attribute var a6: Int64
    @Attribute var a7: Int64
    @Attribute var a8: Int64
    @Attribute var a9: Int64
    @Attribute var a10: Int64
    @Attribute var a11: Int64
    @Attribute var a12: Int64
    @Attribute var a13: Int64
    @Attribute var a14: Int64
    @Attribute var a15: Int64
    @Attribute var a16: Int64
    @Attribute var a17: Int64
    @Attribute var a18: Int64
    @Attribute var a19: Int64
    @Attribute var a20: Int64
    @Attribute var a21: Int64
    @Attribute var a22: Int64
    @Attribute var a23: Int64
    @Attribute var a24: Int64
    @Attribute var a25: Int64
    @Attribute var a26: Int64
    @Attribute var a27: Int64
    @Attribute var a28: Int64
    @Attribute var a29: Int64
    @Attribute var a30: Int64
    @Attribute var a31: Int64
    @Attribute var a32: Int64
    @Attribute var a33: Int64
    @Attribute var a34: Int64
    @Attribute var a35: Int64
    @Attribute var a36: Int64
    @Attribute var a37: Int64
    @Attribute var a38: Int64
    @Attribute var a39: Int64
    @Attribute var a40: Int64
    @Attribute var a41: Int64
    @Attribute var a42: Int64
    @Attribute var a43: Int64
    @Attribute var a44: Int64
    @Attribute var a45: Int64
    @Attribute var a46: Int64
    @Attribute var a47: Int64
    @Attribute var a48: Int64
    @Attribute var a49: Int64
    @Attribute var a50: Int64
    @Attribute var a51: Int64
    @Attribute var a52: Int64
    @Attribute var a53: Int64
    @Attribute var a54: Int64
    @Attribute var a55: Int64
    @Attribute var a56: Int64
    @Attribute var a57: Int64
    @Attribute var a58: Int64
    @Attribute var a59: Int64
    @Attribute var a60: Int64
    @Attribute var a61: Int64
    @Attribute var a62: Int64
    @Attribute var a63: Int64
    @Attribute var a64: Int64
    @Attribute var a65: Int64
    @Attribute var a66: Int64
    @Attribute var a67: Int64
    @Attribute var a68: Int64
    @Attribute var a69: Int64
}

final class WideTypedPropertyTests: XCTestCase {
    func testEveryTypedPropertyOfAWideClassReachesItsOwnAttribute() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Wide", class: Wide.self) {
            .attribute("a0", .integer64, defaultValue: 0)
            .attribute("a1", .integer64, defaultValue: 0)
            .attribute("a2", .integer64, defaultValue: 0)
            .attribute("a3", .integer64, defaultValue: 0)
            .attribute("a4", .integer64, defaultValue: 0)
            .attribute("a5", .integer64, defaultValue: 0)
            .attribute("a6", .integer64, defaultValue: 0)
            .attribute("a7", .integer64, defaultValue: 0)
            .attribute("a8", .integer64, defaultValue: 0)
            .attribute("a9", .integer64, defaultValue: 0)
            .attribute("a10", .integer64, defaultValue: 0)
            .attribute("a11", .integer64, defaultValue: 0)
            .attribute("a12", .integer64, defaultValue: 0)
            .attribute("a13", .integer64, defaultValue: 0)
            .attribute("a14", .integer64, defaultValue: 0)
            .attribute("a15", .integer64, defaultValue: 0)
            .attribute("a16", .integer64, defaultValue: 0)
            .attribute("a17", .integer64, defaultValue: 0)
            .attribute("a18", .integer64, defaultValue: 0)
            .attribute("a19", .integer64, defaultValue: 0)
            .attribute("a20", .integer64, defaultValue: 0)
            .attribute("a21", .integer64, defaultValue: 0)
            .attribute("a22", .integer64, defaultValue: 0)
            .attribute("a23", .integer64, defaultValue: 0)
            .attribute("a24", .integer64, defaultValue: 0)
            .attribute("a25", .integer64, defaultValue: 0)
            .attribute("a26", .integer64, defaultValue: 0)
            .attribute("a27", .integer64, defaultValue: 0)
            .attribute("a28", .integer64, defaultValue: 0)
            .attribute("a29", .integer64, defaultValue: 0)
            .attribute("a30", .integer64, defaultValue: 0)
            .attribute("a31", .integer64, defaultValue: 0)
            .attribute("a32", .integer64, defaultValue: 0)
            .attribute("a33", .integer64, defaultValue: 0)
            .attribute("a34", .integer64, defaultValue: 0)
            .attribute("a35", .integer64, defaultValue: 0)
            .attribute("a36", .integer64, defaultValue: 0)
            .attribute("a37", .integer64, defaultValue: 0)
            .attribute("a38", .integer64, defaultValue: 0)
            .attribute("a39", .integer64, defaultValue: 0)
            .attribute("a40", .integer64, defaultValue: 0)
            .attribute("a41", .integer64, defaultValue: 0)
            .attribute("a42", .integer64, defaultValue: 0)
            .attribute("a43", .integer64, defaultValue: 0)
            .attribute("a44", .integer64, defaultValue: 0)
            .attribute("a45", .integer64, defaultValue: 0)
            .attribute("a46", .integer64, defaultValue: 0)
            .attribute("a47", .integer64, defaultValue: 0)
            .attribute("a48", .integer64, defaultValue: 0)
            .attribute("a49", .integer64, defaultValue: 0)
            .attribute("a50", .integer64, defaultValue: 0)
            .attribute("a51", .integer64, defaultValue: 0)
            .attribute("a52", .integer64, defaultValue: 0)
            .attribute("a53", .integer64, defaultValue: 0)
            .attribute("a54", .integer64, defaultValue: 0)
            .attribute("a55", .integer64, defaultValue: 0)
            .attribute("a56", .integer64, defaultValue: 0)
            .attribute("a57", .integer64, defaultValue: 0)
            .attribute("a58", .integer64, defaultValue: 0)
            .attribute("a59", .integer64, defaultValue: 0)
            .attribute("a60", .integer64, defaultValue: 0)
            .attribute("a61", .integer64, defaultValue: 0)
            .attribute("a62", .integer64, defaultValue: 0)
            .attribute("a63", .integer64, defaultValue: 0)
            .attribute("a64", .integer64, defaultValue: 0)
            .attribute("a65", .integer64, defaultValue: 0)
            .attribute("a66", .integer64, defaultValue: 0)
            .attribute("a67", .integer64, defaultValue: 0)
            .attribute("a68", .integer64, defaultValue: 0)
            .attribute("a69", .integer64, defaultValue: 0)
            }
        }
        let container = PersistentContainer(name: "Wide", managedObjectModel: model)
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: .inMemory)]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let wide = try Wide(context: context)
            wide.a0 = 0
            wide.a1 = 1
            wide.a2 = 2
            wide.a3 = 3
            wide.a4 = 4
            wide.a5 = 5
            wide.a6 = 6
            wide.a7 = 7
            wide.a8 = 8
            wide.a9 = 9
            wide.a10 = 10
            wide.a11 = 11
            wide.a12 = 12
            wide.a13 = 13
            wide.a14 = 14
            wide.a15 = 15
            wide.a16 = 16
            wide.a17 = 17
            wide.a18 = 18
            wide.a19 = 19
            wide.a20 = 20
            wide.a21 = 21
            wide.a22 = 22
            wide.a23 = 23
            wide.a24 = 24
            wide.a25 = 25
            wide.a26 = 26
            wide.a27 = 27
            wide.a28 = 28
            wide.a29 = 29
            wide.a30 = 30
            wide.a31 = 31
            wide.a32 = 32
            wide.a33 = 33
            wide.a34 = 34
            wide.a35 = 35
            wide.a36 = 36
            wide.a37 = 37
            wide.a38 = 38
            wide.a39 = 39
            wide.a40 = 40
            wide.a41 = 41
            wide.a42 = 42
            wide.a43 = 43
            wide.a44 = 44
            wide.a45 = 45
            wide.a46 = 46
            wide.a47 = 47
            wide.a48 = 48
            wide.a49 = 49
            wide.a50 = 50
            wide.a51 = 51
            wide.a52 = 52
            wide.a53 = 53
            wide.a54 = 54
            wide.a55 = 55
            wide.a56 = 56
            wide.a57 = 57
            wide.a58 = 58
            wide.a59 = 59
            wide.a60 = 60
            wide.a61 = 61
            wide.a62 = 62
            wide.a63 = 63
            wide.a64 = 64
            wide.a65 = 65
            wide.a66 = 66
            wide.a67 = 67
            wide.a68 = 68
            wide.a69 = 69
            for i in 0..<70 { XCTAssertEqual(try wide.value(forKey: "a\(i)") as? Int64, Int64(i)) }
            let total: Int64 = wide.a0 + wide.a1 + wide.a2 + wide.a3 + wide.a4 + wide.a5 + wide.a6 + wide.a7 + wide.a8 + wide.a9 + wide.a10 + wide.a11 + wide.a12 + wide.a13 + wide.a14 + wide.a15 + wide.a16 + wide.a17 + wide.a18 + wide.a19 + wide.a20 + wide.a21 + wide.a22 + wide.a23 + wide.a24 + wide.a25 + wide.a26 + wide.a27 + wide.a28 + wide.a29 + wide.a30 + wide.a31 + wide.a32 + wide.a33 + wide.a34 + wide.a35 + wide.a36 + wide.a37 + wide.a38 + wide.a39 + wide.a40 + wide.a41 + wide.a42 + wide.a43 + wide.a44 + wide.a45 + wide.a46 + wide.a47 + wide.a48 + wide.a49 + wide.a50 + wide.a51 + wide.a52 + wide.a53 + wide.a54 + wide.a55 + wide.a56 + wide.a57 + wide.a58 + wide.a59 + wide.a60 + wide.a61 + wide.a62 + wide.a63 + wide.a64 + wide.a65 + wide.a66 + wide.a67 + wide.a68 + wide.a69
            XCTAssertEqual(total, Int64(2415))
            XCTAssertEqual(wide.a69, 69)
            XCTAssertEqual(wide.a0, 0)
        }
    }
}
