import EddyHLS
import XCTest

final class VariantPredicateTests: XCTestCase {
    func variant(_ attrs: String) -> Variant { Variant(index: 0, attributes: AttributeList(attrs), uri: "v.m3u8")! }

    let pq = #"BANDWIDTH=4000000,AVERAGE-BANDWIDTH=3000000,CODECS="hvc1.2.4.L123.B0,mp4a.40.2",RESOLUTION=1920x1080,FRAME-RATE=23.976,VIDEO-RANGE=PQ,HDCP-LEVEL=TYPE-0"#
    let sd = #"BANDWIDTH=800000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=640x360"#

    func check(_ text: String, _ attrs: String, channels: Int? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> Bool {
        try VariantPredicate.parse(text).matches(variant(attrs), channels: channels)
    }

    func test_comparisons_andBooleanOperators() throws {
        XCTAssertTrue(try check("videoRange == PQ && peakBitRate < 5000000", pq))
        XCTAssertFalse(try check("videoRange == PQ && peakBitRate < 5000000", sd))
        XCTAssertTrue(try check("height <= 720", sd))
        XCTAssertFalse(try check("height <= 720", pq))
        XCTAssertTrue(try check("!(hdcp == TYPE-0) || width >= 1920", pq))
        XCTAssertFalse(try check("!(hdcp == TYPE-0)", pq))
        XCTAssertTrue(try check("averageBitRate > 2.5M && frameRate < 24", pq))
        XCTAssertTrue(try check("peakBitRate >= 800k", sd))
        XCTAssertTrue(try check("height > 100 || height < 50 && width == 0", sd), "&& binds tighter than ||")
    }

    func test_codecsMatchByPrefix_wordsIgnoreCase() throws {
        XCTAssertTrue(try check("videoCodec == hvc1", pq))
        XCTAssertTrue(try check("videoCodec == hvc1.2.4", pq))
        XCTAssertFalse(try check("videoCodec == hvc", pq), "prefix at a dot boundary only")
        XCTAssertTrue(try check("videoCodec != hvc1", sd))
        XCTAssertTrue(try check("audioCodec in [ec-3, mp4a]", sd))
        XCTAssertTrue(try check("videoCodec contains \"L123\"", pq))
        XCTAssertTrue(try check("videoRange == pq", pq))
    }

    func test_absentAttributes_areSDRorNONEorNothing() throws {
        XCTAssertTrue(try check("videoRange == SDR", sd))
        XCTAssertTrue(try check("hdcp == NONE", sd))
        XCTAssertFalse(try check("averageBitRate > 0", sd))
        XCTAssertTrue(try check("averageBitRate != 5", sd))
        XCTAssertTrue(try check("channels >= 6", sd, channels: 6))
        XCTAssertFalse(try check("channels >= 6", sd, channels: nil))
    }

    func test_errors_namePositions() {
        let cases: [(String, Int, String)] = [
            ("height <=", 9, "expected a value"),
            ("heigth <= 720", 0, "unknown attribute 'heigth'"),
            ("height 720", 7, "expected an operator"),
            ("videoRange < PQ", 0, "needs a numeric attribute"),
            ("height < PQ", 9, "needs a number"),
            ("(height < 5", 11, "expected ')'"),
            ("height < 5 )", 11, "unexpected ')'"),
            ("videoCodec in [hvc1", 19, "expected ']'"),
            ("videoCodec == \"hvc1", 14, "unterminated"),
            ("height == 7x2", 10, "malformed number"),
        ]
        for (text, position, message) in cases {
            XCTAssertThrowsError(try VariantPredicate.parse(text), text) { e in
                let e = e as! PredicateSyntaxError
                XCTAssertEqual(e.position, position, text)
                XCTAssertTrue(e.message.contains(message), "\(text): \(e.message)")
            }
        }
    }

    func test_hostileNesting_isAnErrorNotACrash() {
        XCTAssertThrowsError(try VariantPredicate.parse(String(repeating: "(", count: 10000) + "height > 1"))
        XCTAssertThrowsError(try VariantPredicate.parse(String(repeating: "!", count: 3000) + "height > 1"))
        XCTAssertThrowsError(try VariantPredicate.parse(String(repeating: "height > 1 && ", count: 500) + "height > 1"))
    }

    func test_emptyPredicate_matchesEverything_andQualifierOrder() throws {
        XCTAssertEqual(try VariantPredicate.parse("  "), .always)
        XCTAssertEqual(try VariantQualifier.parse("lowest").lowest, true)
        XCTAssertEqual(try VariantQualifier.parse("lowest").predicate, .always)
        let q = try VariantQualifier.parse("height >= 720 lowest")
        XCTAssertTrue(q.lowest)
        XCTAssertEqual(q.predicate, .compare(.height, .ge, .number(720)))
        XCTAssertFalse(try VariantQualifier.parse("height >= 720 highest").lowest)
    }
}
