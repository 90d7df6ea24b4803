import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// Error codes as `catch` patterns, and errors that keep what caused them.
final class ErrorCodeMatchingTests: XCTestCase {
    func testACodeNamedInCatchMatchesOnlyErrorsOfItsTypeWithThatCode() throws {
        let context = try TestStack.container().viewContext
        let post = try context.insertNewObject(forEntityName: "Post")
        try post.setValue(nil, forKey: "title")

        var caught = ""
        do {
            try context.save()
        } catch StoreError.Code.readOnly {
            caught = "store error"
        } catch ObjectValidationError.Code.tooLarge {
            caught = "another code"
        } catch ObjectValidationError.Code.missingValue {
            caught = "missing value"
        } catch {
            caught = "unmatched: \(error)"
        }
        XCTAssertEqual(caught, "missing value")

        XCTAssertTrue(StoreError.Code.readOnly ~= StoreError(.readOnly, "read-only"))
        XCTAssertFalse(StoreError.Code.io ~= StoreError(.readOnly, "read-only"))
        XCTAssertFalse(FetchError.Code.unsupported ~= StoreError(.readOnly, "a store error never carries a fetch code"))
    }

    func testAStoreErrorKeepsTheFileSystemErrorThatCausedIt() throws {
        // A directory where the store's file should be: reading it fails in the file system.
        let directory = try TemporaryDirectory()
        XCTAssertThrowsError(try TestStack.xmlContainer(at: directory.url)) { error in
            guard let error = error as? StoreError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.code, .io, "\(error)")
            XCTAssertNotNil(error.underlyingError, "the file system's error is kept: \(error)")
        }
    }
}
