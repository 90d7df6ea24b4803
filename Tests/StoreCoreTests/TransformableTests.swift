import Foundation
import Logging
@testable import StoreCore
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

    func testUnregisteredTransformerFallsBackToCoreDatasDefaultAndRefusesWhatItCannotArchive() throws {
        let container = try TestStack.container(try model(transformer: "NeverRegistered"))
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let theme = try Theme(context: context)
            // Core Data's default transformer cannot archive a Swift struct: refused, nothing set.
            XCTAssertThrowsError(try theme.setValue(Palette(colors: []), forKey: "palette")) { error in
                XCTAssertEqual((error as? ModelError)?.code, .unknownTransformer)
                XCTAssertTrue("\(error)".contains("NeverRegistered"), "\(error)")
            }
            XCTAssertEqual(try theme.storeValue(forKey: "palette"), .null)
            try theme.setStoreValue(.data(Data("{\"colors\":[]}".utf8)), forKey: "palette")
            XCTAssertThrowsError(try theme.value(forKey: "palette")) { error in
                XCTAssertEqual((error as? ModelError)?.code, .unknownTransformer, "data is never decoded blindly")
            }
        }
    }

    /// Core Data logs "no NSValueTransformer with class name … was found" for a transformer name
    /// nobody registered and goes on with its default transformer: Foundation's values archive
    /// as keyed archives and read back, as Wire's `ExtendedSecureUnarchiveFromData` attributes do
    /// before its app registers the transformer.
    func testUnregisteredTransformerStoresFoundationValuesAsCoreDatasDefaultDoes() throws {
        let container = try TestStack.container(try model(transformer: "ExtendedSecureUnarchiveFromData"))
        let context = container.newBackgroundContext()
        let id = try context.performAndWait {
            let theme = try Theme(context: context)
            theme.name = "Dusk"
            try theme.setValue(["#123", "#456"], forKey: "palette")
            try context.save()
            return theme.objectID
        }
        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            let theme = try reader.existingObject(with: id)
            XCTAssertEqual(try theme.value(forKey: "palette") as? [String], ["#123", "#456"])
            guard case .data(let data) = try theme.storeValue(forKey: "palette") else { return XCTFail("stored as data") }
            XCTAssertEqual(try KeyedArchive.unarchive(data) as? [String], ["#123", "#456"], "an NSKeyedArchiver archive")
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

extension TransformableTests {
    /// A getter cannot throw: stored data the transformer cannot decode reads as nil, as in Core
    /// Data — and the reason is logged, not lost; `value(forKey:)` throws it.
    func testTypedTransformableValueThatCannotBeDecodedReadsNilAndIsLogged() throws {
        AttributeValueTransformers.register(CodableAttributeTransformer<Palette>(), named: "PaletteTransformer")
        let container = try TestStack.container(try model(transformer: "PaletteTransformer"))
        let context = container.newBackgroundContext()
        let recorded = RecordingLogHandler.Lines()
        try context.performAndWait {
            let theme = try Theme(context: context)
            theme.name = "Dusk"
            try theme.setStoreValue(.data(Data("not a palette".utf8)), forKey: "palette")
            let read = TransformerLog.logging(to: Logger(label: "stowage.model") { _ in RecordingLogHandler(lines: recorded) }) { theme.palette }
            XCTAssertNil(read)
            XCTAssertThrowsError(try theme.value(forKey: "palette")) { error in
                XCTAssertEqual((error as? ObjectValidationError)?.code, .wrongType, "\(error)")
            }
        }
        XCTAssertEqual(recorded.all.count, 1, "\(recorded.all)")
        XCTAssertTrue(recorded.all.first?.hasPrefix("error: Theme.palette of ") == true, "\(recorded.all)")
        XCTAssertTrue(recorded.all.first?.contains("cannot be read, so it reads as nil") == true, "\(recorded.all)")
    }
}
