import EddyCore
import XCTest

final class HTTPHeadersTests: XCTestCase {
    func test_subscript_anyCase_returnsFirstValue() {
        let h = HTTPHeaders([("Content-Type", "a"), ("content-type", "b")])
        XCTAssertEqual(h["CONTENT-TYPE"], "a")
        XCTAssertNil(h["Content-Length"])
    }

    func test_combined_severalFields_joinsWithCommaSpace() {
        let h = HTTPHeaders([("Vary", "A"), ("X", "1"), ("vary", "B")])
        XCTAssertEqual(h.combined("VARY"), "A, B")
        XCTAssertEqual(h.combined("X"), "1")
        XCTAssertNil(h.combined("Y"))
    }

    func test_set_existingName_replacesAllOfName() {
        var h = HTTPHeaders([("A", "1"), ("B", "2"), ("a", "3")])
        h.set("A", "4")
        XCTAssertEqual(h, HTTPHeaders([("B", "2"), ("A", "4")]))
    }

    func test_remove_anyCase_removesAllOfName() {
        var h = HTTPHeaders([("A", "1"), ("B", "2"), ("a", "3")])
        h.remove("A")
        XCTAssertEqual(h.fields.map(\.name), ["B"])
    }

    func test_add_repeatedNames_keepsOrderAndDuplicates() {
        var h = HTTPHeaders()
        h.add("A", "1")
        h.add("A", "2")
        h.add("B", "3")
        XCTAssertEqual(h.map { "\($0.name)=\($0.value)" }, ["A=1", "A=2", "B=3"])
    }

    func test_equality_differentOrderOrCase_isNotEqual() {
        XCTAssertEqual(HTTPHeaders([("A", "1")]), HTTPHeaders([("A", "1")]))
        XCTAssertNotEqual(HTTPHeaders([("A", "1")]), HTTPHeaders([("a", "1")]))
        XCTAssertNotEqual(HTTPHeaders([("A", "1"), ("B", "2")]), HTTPHeaders([("B", "2"), ("A", "1")]))
        XCTAssertNotEqual(HTTPHeaders([("A", "1")]), HTTPHeaders())
    }

    func test_caseInsensitiveEquals_asciiLetters_ignoresCase() {
        XCTAssertTrue("Content-Type".caseInsensitiveEquals("content-TYPE"))
        XCTAssertFalse("abc".caseInsensitiveEquals("abd"))
        XCTAssertFalse("abc".caseInsensitiveEquals("abcd"))
        XCTAssertTrue("".caseInsensitiveEquals(""))
        XCTAssertFalse("[".caseInsensitiveEquals("{"))
    }

    /// Only A-Z fold: bytes 0x20 apart that are not letters, and non-ASCII letters, differ. Long
    /// (heap) strings and short (inline) ones take the same contiguous path.
    func test_caseInsensitiveEquals_foldsOnlyASCIILetters_atAnyLength() {
        XCTAssertFalse("@".caseInsensitiveEquals("`"))
        XCTAssertFalse("É".caseInsensitiveEquals("é"))
        XCTAssertTrue("É".caseInsensitiveEquals("É"))
        let long = String(repeating: "Access-Control-Allow-Origin-", count: 8)
        XCTAssertTrue(long.caseInsensitiveEquals(long.uppercased()))
        XCTAssertFalse(long.caseInsensitiveEquals(String(long.dropLast()) + "_"))
        XCTAssertTrue(String(long.prefix(12)).caseInsensitiveEquals("access-contr"))
    }
}
