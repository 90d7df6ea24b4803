import Foundation
import StoreCore
import StoreTestSupport
import XCTest

struct Palette: Codable, Sendable, Equatable {
    var colors: [String]
}

final class Theme: ManagedObject {
    @Transformable var palette: Palette?
    @Attribute var name: String
}

final class TransformableTests: XCTestCase {
    private func model(transformer: String) throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Theme", class: Theme.self) {
                .attribute("name", .string)
                .attribute("palette", .transformable(named: transformer))
            }
        }
    }

    func testRegisteredTransformerRoundTripsThroughTheStore() throws {
        AttributeValueTransformers.register(CodableAttributeTransformer<Palette>(), named: "PaletteTransformer")
        let container = try TestStack.container(try model(transformer: "PaletteTransformer"))
        let context = container.newBackgroundContext()
        let id = try context.performAndWait {
            let theme = try Theme(context: context)
            theme.name = "Dusk"
            theme.palette = Palette(colors: ["#123", "#456"])
            try context.save()
            XCTAssertThrowsError(try theme.setValue("not a palette", forKey: "palette")) { error in
                XCTAssertEqual((error as? ObjectValidationError)?.code, .wrongType)
            }
            return theme.objectID
        }
        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            let theme = try XCTUnwrap(reader.existingObject(with: id) as? Theme)
            XCTAssertEqual(theme.palette, Palette(colors: ["#123", "#456"]))
            if case .data = try theme.storeValue(forKey: "palette") {} else { XCTFail("stored as data") }
        }
    }

    func testUnknownTransformerIsRefused() throws {
        let container = try TestStack.container(try model(transformer: "NeverRegistered"))
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let theme = try Theme(context: context)
            XCTAssertThrowsError(try theme.setValue(Palette(colors: []), forKey: "palette")) { error in
                XCTAssertEqual((error as? ModelError)?.code, .unknownTransformer)
            }
            try theme.setStoreValue(.data(Data("{\"colors\":[]}".utf8)), forKey: "palette")
            XCTAssertThrowsError(try theme.value(forKey: "palette")) { error in
                XCTAssertEqual((error as? ModelError)?.code, .unknownTransformer, "data is never decoded blindly")
            }
        }
    }
}

extension TransformableTests {
    func testTypedTransformableSetterFailureIsReportedAtSave() throws {
        let container = try TestStack.container(try model(transformer: "AlsoNeverRegistered"))
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let theme = try Theme(context: context)
            theme.palette = Palette(colors: ["#fff"])
            XCTAssertThrowsError(try context.save()) { error in
                XCTAssertEqual((error as? ObjectValidationError)?.allErrors.first?.key, "palette")
            }
        }
    }
}
