import EddyCore
import XCTest

final class VaryKeyTests: XCTestCase {
    let base = "http://o/v.mp4"

    func test_fields_lowercasedSortedUnique_withoutAcceptEncoding() {
        XCTAssertEqual(VaryKey.fields(["Accept-Language, Cookie", "cookie", "Accept-Encoding"]), ["accept-language", "cookie"])
        XCTAssertEqual(VaryKey.fields([" X-A ,,x-b"]), ["x-a", "x-b"])
    }

    func test_fields_onlyAcceptEncodingOrNothing_isEmpty() {
        XCTAssertEqual(VaryKey.fields(["Accept-Encoding"]), [])
        XCTAssertEqual(VaryKey.fields([]), [])
        XCTAssertEqual(VaryKey.fields([""]), [])
    }

    func test_fields_star_isNil() {
        XCTAssertNil(VaryKey.fields(["*"]))
        XCTAssertNil(VaryKey.fields(["Cookie", " * "]))
    }

    func key(_ fields: [String], _ headers: [(String, String)]) -> String {
        VaryKey.key(base, fields: fields, request: HTTPHeaders(headers))
    }

    func test_key_sameValues_sameKey_whitespaceAndLinesNormalised() {
        let a = key(["accept-language"], [("Accept-Language", "fr, en")])
        XCTAssertEqual(a, key(["accept-language"], [("accept-language", "fr,en ")]))
        XCTAssertEqual(a, key(["accept-language"], [("Accept-Language", "fr"), ("Accept-Language", "en")]))
    }

    func test_key_differentValues_differentKeys() {
        XCTAssertNotEqual(key(["accept-language"], [("Accept-Language", "fr")]), key(["accept-language"], [("Accept-Language", "en")]))
        XCTAssertNotEqual(key(["accept-language"], [("Accept-Language", "fr")]), key(["accept-language"], [("Accept-Language", "FR")]))
    }

    func test_key_absentDiffersFromEmpty() {
        XCTAssertNotEqual(key(["x"], []), key(["x"], [("X", "")]))
    }

    func test_key_separatorsInValues_doNotCollide() {
        // Two fields: "a\u{1}" + absent would read like "a" + empty without escaping.
        XCTAssertNotEqual(key(["x", "y"], [("X", "a\u{1}")]), key(["x", "y"], [("X", "a"), ("Y", "")]))
        XCTAssertNotEqual(key(["x"], [("X", "%01")]), key(["x"], [("X", "\u{1}")]))
    }

    func test_key_unrelatedFieldsIgnored() {
        XCTAssertEqual(key(["x"], [("X", "1"), ("Y", "2")]), key(["x"], [("X", "1")]))
    }

    func test_key_hasPrefix_andFieldsReadBack() {
        let k = key(["accept-language", "cookie"], [("Cookie", "a=1")])
        XCTAssertTrue(k.hasPrefix(VaryKey.prefix(base)))
        XCTAssertTrue(k < VaryKey.prefixEnd(base))
        XCTAssertTrue(k > VaryKey.prefix(base))
        XCTAssertEqual(VaryKey.fields(ofKey: k), ["accept-language", "cookie"])
        XCTAssertNil(VaryKey.fields(ofKey: base))
    }

    func test_key_neverEqualsAnotherURLsKeyOrPrefix() {
        // "http://o/v.mp4x" sorts after the base but must not fall inside its variant range.
        let other = base + "x"
        XCTAssertFalse(other > VaryKey.prefix(base) && other < VaryKey.prefixEnd(base))
        XCTAssertFalse(base > VaryKey.prefix(base) && base < VaryKey.prefixEnd(base))
    }
}
