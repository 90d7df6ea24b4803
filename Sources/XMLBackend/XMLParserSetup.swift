import Foundation
internal import CXML

/// Process-wide libxml2 setup, done once and thread-safely (a `static let` is initialised once):
/// the parser's global tables, and an external entity loader that refuses everything.
///
/// libxml2's external entity loader is global to the process. Stowage's readers never ask for an
/// external entity (no `XML_PARSE_NOENT`, no DTD loading, and the prolog check refuses
/// declarations before libxml2 sees them), so the loader is a last line of defence: whatever asks,
/// it returns no input, no file is opened and no connection is made. Other libxml2 users in the
/// same process (FoundationXML, say) get the same loader once an XML store has been read or written.
enum XMLParserSetup {
    private static let done: Bool = {
        xmlInitParser()
        xmlSetExternalEntityLoader(denyExternalEntity)
        return true
    }()

    /// Runs the one-time setup if it has not run yet.
    static func ensure() {
        _ = done
    }
}

/// The deny-all external entity loader: returns no input for any URL or public identifier.
private func denyExternalEntity(
    _ url: UnsafePointer<CChar>?, _ identifier: UnsafePointer<CChar>?, _ context: xmlParserCtxtPtr?
) -> xmlParserInputPtr? {
    nil
}

/// Runs `body` with the calling thread's libxml2 error handlers replaced by silent ones, so that
/// nothing libxml2 reports reaches stderr; the thread's handlers are restored afterwards.
func withSilencedLibXML2Errors<T>(_ body: () throws -> T) rethrows -> T {
    var saved = stowage_xml_error_handlers()
    stowage_xml_silence_errors(&saved)
    defer { stowage_xml_restore_errors(&saved) }
    return try body()
}
