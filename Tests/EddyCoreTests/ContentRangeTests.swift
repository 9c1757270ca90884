import EddyCore
import XCTest

/// RFC 9110 section 14.4.
final class ContentRangeTests: XCTestCase {
    func test_parse_valid_hasSpanAndLength() {
        let cr = ContentRange.parse("bytes 42-1233/1234")
        XCTAssertEqual(cr, ContentRange(span: ByteSpan(first: 42, last: 1233), completeLength: 1234))
    }

    func test_parse_unknownCompleteLength_isNilLength() {
        let cr = ContentRange.parse("bytes 42-1233/*")
        XCTAssertEqual(cr?.span, ByteSpan(first: 42, last: 1233))
        XCTAssertNil(cr?.completeLength)
    }

    func test_parse_unsatisfiedForm_hasNoSpan() {
        let cr = ContentRange.parse("bytes */1234")
        XCTAssertNotNil(cr)
        XCTAssertNil(cr?.span)
        XCTAssertEqual(cr?.completeLength, 1234)
    }

    func test_parse_unsatisfiedFormZeroLength_isValid() {
        XCTAssertEqual(ContentRange.parse("bytes */0"), ContentRange(span: nil, completeLength: 0))
    }

    func test_parse_starStar_isNil() {
        XCTAssertNil(ContentRange.parse("bytes */*"))
    }

    func test_parse_lastBeforeFirst_isNil() {
        XCTAssertNil(ContentRange.parse("bytes 500-499/1000"))
    }

    func test_parse_completeLengthNotAfterLast_isNil() {
        XCTAssertNil(ContentRange.parse("bytes 0-1000/1000"))
        XCTAssertNil(ContentRange.parse("bytes 0-1500/1000"))
        XCTAssertNotNil(ContentRange.parse("bytes 0-999/1000"))
    }

    func test_parse_singleByte_isValid() {
        XCTAssertEqual(ContentRange.parse("bytes 0-0/1"), ContentRange(span: ByteSpan(first: 0, last: 0), completeLength: 1))
    }

    func test_parse_whitespaceAndUnitCase_isAccepted() {
        XCTAssertEqual(ContentRange.parse("  Bytes 0-9/10 "), ContentRange(span: ByteSpan(first: 0, last: 9), completeLength: 10))
    }

    func test_parse_malformed_isNil() {
        for v in ["", "bytes", "bytes 0-9", "0-9/10", "bytes=0-9/10", "items 0-9/10", "bytes 0-/10", "bytes -9/10",
                  "bytes a-b/10", "bytes 0-9/x", "bytes 0-9/", "bytes 0-9/-1", "bytes /10", "bytes 5/10"] {
            XCTAssertNil(ContentRange.parse(v), v)
        }
    }

    func test_parse_intMaxValues_areRejected() {
        XCTAssertNil(ContentRange.parse("bytes 0-9/99999999999999999999999"))
        XCTAssertNil(ContentRange.parse("bytes 0-99999999999999999999999/*"))
    }

    func test_headerValue_allForms_roundTrip() {
        for v in ["bytes 0-499/1234", "bytes 500-1233/1234", "bytes 0-9/*", "bytes */1234"] {
            XCTAssertEqual(ContentRange.parse(v)?.headerValue, v)
        }
    }

    func test_headerValue_constructed_isRFCFormat() {
        XCTAssertEqual(ContentRange(span: ByteSpan(first: 9500, last: 9999), completeLength: 10_000).headerValue, "bytes 9500-9999/10000")
        XCTAssertEqual(ContentRange(span: nil, completeLength: 0).headerValue, "bytes */0")
        XCTAssertEqual(ContentRange(span: ByteSpan(first: 1, last: 2), completeLength: nil).headerValue, "bytes 1-2/*")
    }

    func test_headerValue_largeAndEdgeNumbers() {
        XCTAssertEqual(ContentRange(span: ByteSpan(first: 20_971_520, last: 20_987_903), completeLength: 67_108_864).headerValue,
                       "bytes 20971520-20987903/67108864")
        XCTAssertEqual(ContentRange(span: ByteSpan(first: 0, last: 0), completeLength: 1).headerValue, "bytes 0-0/1")
        XCTAssertEqual(ContentRange(span: ByteSpan(first: Int.max - 1, last: Int.max - 1), completeLength: Int.max).headerValue,
                       "bytes 9223372036854775806-9223372036854775806/9223372036854775807")
        XCTAssertEqual(ContentRange(span: nil, completeLength: nil).headerValue, "bytes */*")
        for n in [1, 9, 10, 99, 100, 12345, 1 << 40] {
            XCTAssertEqual(ContentRange(span: ByteSpan(first: n, last: n), completeLength: n + 1).headerValue, "bytes \(n)-\(n)/\(n + 1)")
        }
    }
}
