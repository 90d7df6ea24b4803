import Foundation
import StoreSQL
import Testing

/// The JSON array a long `IN` list is bound as (``QueryTranslator/jsonArray(_:)``): text that
/// needs no escape goes in whole, text that does is escaped character by character.
@Suite struct JSONArrayBindingTests {
    @Test func plainTextGoesInAsItIs() {
        #expect(QueryTranslator.jsonArray([.text("c1"), .text("é 🌍"), .text("")]) == #"["c1","é 🌍",""]"#)
    }

    @Test func quotesBackslashesAndControlCharactersAreEscaped() {
        let values: [SQLValue] = [.text("say \"hi\""), .text(#"a\b"#), .text("line\nnext\u{1}"), .text("plain")]
        #expect(QueryTranslator.jsonArray(values) == #"["say \"hi\"","a\\b","line\u000Anext\u0001","plain"]"#)
    }

    @Test func numbersAndNullsKeepTheirForm() {
        #expect(QueryTranslator.jsonArray([.integer(-3), .real(2.5), .null, .text("x")]) == #"[-3,2.5,null,"x"]"#)
        #expect(QueryTranslator.jsonArray([.real(.infinity)]) == nil)
        #expect(QueryTranslator.jsonArray([.blob(Data([1]))]) == nil)
    }
}
