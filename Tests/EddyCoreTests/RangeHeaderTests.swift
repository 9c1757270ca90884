@testable import EddyCore
import XCTest

/// RFC 9110 section 14.1 (range units and specs) and 14.2 (the Range field).
final class RangeHeaderTests: XCTestCase {
    private func specs(_ value: String, file: StaticString = #filePath, line: UInt = #line) -> [RangeSpec]? {
        guard case let .bytes(s)? = RangeHeader.parse(value) else { return nil }
        return s
    }

    private func assertIgnored(_ value: String, file: StaticString = #filePath, line: UInt = #line) {
        guard case .ignored? = RangeHeader.parse(value) else {
            return XCTFail("expected \(value) to be ignored, got \(String(describing: RangeHeader.parse(value)))", file: file, line: line)
        }
    }

    func test_parse_nil_isNil() {
        XCTAssertNil(RangeHeader.parse(nil))
    }

    func test_parse_single_isFromFirstToLast() {
        XCTAssertEqual(specs("bytes=0-499"), [.from(first: 0, last: 499)])
    }

    func test_parse_open_hasNilLast() {
        XCTAssertEqual(specs("bytes=500-"), [.from(first: 500, last: nil)])
    }

    func test_parse_suffix_isSuffixLength() {
        XCTAssertEqual(specs("bytes=-500"), [.suffix(length: 500)])
    }

    func test_parse_suffixZero_isSyntacticallyValid() {
        // `-0` is valid syntax but unsatisfiable (section 14.1.1); the plan, not the parser, says 416.
        XCTAssertEqual(specs("bytes=-0"), [.suffix(length: 0)])
    }

    func test_parse_firstEqualsLast_isOneByte() {
        XCTAssertEqual(specs("bytes=7-7"), [.from(first: 7, last: 7)])
    }

    func test_parse_lastBeforeFirst_isIgnored() {
        assertIgnored("bytes=500-499")
    }

    func test_parse_oneInvalidAmongValid_isIgnored() {
        assertIgnored("bytes=0-1,5-2")
        assertIgnored("bytes=0-1,abc")
    }

    func test_parse_unknownUnit_isIgnored() {
        assertIgnored("items=0-5")
        assertIgnored("bytesx=0-5")
    }

    func test_parse_unitCaseInsensitive_isAccepted() {
        // Range units are compared case-insensitively (section 14.1).
        XCTAssertEqual(specs("Bytes=0-1"), [.from(first: 0, last: 1)])
        XCTAssertEqual(specs("BYTES=0-1"), [.from(first: 0, last: 1)])
    }

    func test_parse_junk_isIgnored() {
        assertIgnored("garbage")
        assertIgnored("bytes=")
        assertIgnored("bytes=,")
        assertIgnored("bytes=-")
        assertIgnored("bytes=a-b")
        assertIgnored("bytes=1-2-3")
        assertIgnored("bytes=0x10-")
        assertIgnored("bytes=+1-2")
        assertIgnored("bytes=--1")
        assertIgnored("bytes=1")
        assertIgnored("bytes=0 - 1")
        assertIgnored("")
    }

    func test_parse_negativeNumbers_areIgnored() {
        assertIgnored("bytes=-1-5")
    }

    func test_parse_whitespaceAroundValueAndElements_isAccepted() {
        XCTAssertEqual(specs("  bytes=0-1 ,\t 5-9  "), [.from(first: 0, last: 1), .from(first: 5, last: 9)])
        XCTAssertEqual(specs("bytes =0-1"), [.from(first: 0, last: 1)])
    }

    func test_parse_emptyListElements_areSkipped() {
        // #rule: empty list elements are allowed and not counted (RFC 9110 section 5.6.1).
        XCTAssertEqual(specs("bytes=0-1,,2-3,"), [.from(first: 0, last: 1), .from(first: 2, last: 3)])
    }

    func test_parse_multiple_keepsOrderAsSent() {
        XCTAssertEqual(specs("bytes=500-600,-10,0-0"),
                       [.from(first: 500, last: 600), .suffix(length: 10), .from(first: 0, last: 0)])
    }

    func test_parse_exactlyMaxSpecs_isAccepted() {
        let value = "bytes=" + (0..<RangeHeader.maxSpecs).map { "\($0 * 10)-\($0 * 10 + 1)" }.joined(separator: ",")
        XCTAssertEqual(specs(value)?.count, RangeHeader.maxSpecs)
    }

    func test_parse_moreThanMaxSpecs_isIgnored() {
        let value = "bytes=" + (0...RangeHeader.maxSpecs).map { "\($0 * 10)-\($0 * 10 + 1)" }.joined(separator: ",")
        assertIgnored(value)
        XCTAssertEqual(RangeHeader.maxSpecs, 64)
    }

    func test_parse_hugeLast_saturatesToIntMax() {
        XCTAssertEqual(specs("bytes=0-99999999999999999999999999"), [.from(first: 0, last: Int.max)])
    }

    func test_parse_hugeFirst_saturatesToIntMax() {
        XCTAssertEqual(specs("bytes=99999999999999999999999999-"), [.from(first: Int.max, last: nil)])
    }

    func test_parse_hugeSuffix_saturatesToIntMax() {
        XCTAssertEqual(specs("bytes=-99999999999999999999999999"), [.suffix(length: Int.max)])
    }

    func test_parse_hugeFirstAndLast_bothSaturateAndStayValid() {
        XCTAssertEqual(specs("bytes=99999999999999999999-99999999999999999999999"),
                       [.from(first: Int.max, last: Int.max)])
    }

    // MARK: parseDigits

    func test_parseDigits_plainNumber_isValue() {
        XCTAssertEqual(RangeHeader.parseDigits("0"), 0)
        XCTAssertEqual(RangeHeader.parseDigits("0042"), 42)
        XCTAssertEqual(RangeHeader.parseDigits("9223372036854775807"), Int.max)
    }

    func test_parseDigits_overflow_saturates() {
        XCTAssertEqual(RangeHeader.parseDigits("9223372036854775808"), Int.max)
        XCTAssertEqual(RangeHeader.parseDigits(Substring(String(repeating: "9", count: 40))), Int.max)
    }

    func test_parseDigits_nonDigitsOrEmpty_isNil() {
        XCTAssertNil(RangeHeader.parseDigits(""))
        XCTAssertNil(RangeHeader.parseDigits("-1"))
        XCTAssertNil(RangeHeader.parseDigits("+1"))
        XCTAssertNil(RangeHeader.parseDigits("1 "))
        XCTAssertNil(RangeHeader.parseDigits("١٢")) // non-ASCII digits
    }

    func test_parseDigits_over40Characters_isNil() {
        XCTAssertNil(RangeHeader.parseDigits(Substring(String(repeating: "1", count: 41))))
    }

    // MARK: trimmingOWS

    func test_trimmingOWS_spacesAndTabs_areStripped() {
        XCTAssertEqual(" \t a b \t ".trimmingOWS(), "a b")
        XCTAssertEqual("".trimmingOWS(), "")
        XCTAssertEqual("  ".trimmingOWS(), "")
    }

    func test_trimmingOWS_newline_isKept() {
        XCTAssertEqual("\na\n".trimmingOWS(), "\na\n")
    }

    func test_theSingleSpanFastPathAgreesWithTheGeneralParser() {
        // A leading space sends a value through the general parser (the fast path takes no OWS).
        let values = ["bytes=0-0", "bytes=0-", "bytes=-1", "bytes=10-19", "bytes=20971520-20987903", "bytes=-0",
                      "bytes=5-4", "bytes=-", "bytes=1-2-3", "bytes=a-1", "bytes=1-a", "bytes=99999999999999999999999-",
                      "bytes=0-" + String(repeating: "9", count: 40), "bytes=0-" + String(repeating: "9", count: 41),
                      "bytes=1-2,3-4", "Bytes=1-2", "bytes=", "bytes=1", "bytes =1-2", "bytes=1-2 "]
        for v in values {
            XCTAssertEqual(RangeHeader.parse(v), RangeHeader.parse(" " + v), v)
        }
        XCTAssertEqual(RangeHeader.parseSingle("bytes=10-19"), .bytes([.from(first: 10, last: 19)]))
        XCTAssertEqual(RangeHeader.parseSingle("bytes=-100"), .bytes([.suffix(length: 100)]))
        XCTAssertEqual(RangeHeader.parseSingle("bytes=7-"), .bytes([.from(first: 7, last: nil)]))
        XCTAssertEqual(RangeHeader.parseSingle("bytes=99999999999999999999999-"), .bytes([.from(first: Int.max, last: nil)]))
        for other in ["bytes=1-2,3-4", "Bytes=1-2", "bytes=5-4", "bytes=-", " bytes=1-2"] {
            XCTAssertNil(RangeHeader.parseSingle(other), other)
        }
    }

    func test_singleSpan_isTheGeneralPlansSingleSpan_orNil() {
        // Whatever the fast path answers, the general parse and plan answer the same; where it
        // declines, the general path decides (several ranges, past the end, an empty body).
        let values = ["bytes=0-0", "bytes=0-", "bytes=-1", "bytes=10-19", "bytes=20971520-20987903", "bytes=-0",
                      "bytes=5-4", "bytes=-", "bytes=1-2-3", "bytes=99999999999999999999999-", "bytes=0-99999999999",
                      "bytes=-99999999", "bytes=1-2,3-4", "Bytes=1-2", " bytes=1-2", "bytes=100-", "bytes=99-200"]
        var answered = 0
        for length in [0, 1, 100, 67_108_864] {
            for v in values {
                guard let span = RangeHeader.singleSpan(v, length: length) else { continue }
                answered += 1
                XCTAssertEqual(RangePlan.make(RangeHeader.parse(v), length: length), .single(span), "\(v) of \(length)")
            }
        }
        XCTAssertEqual(answered, 21) // 0 of an empty body, 5 of 1 byte, 7 of 100, 9 of 64 MiB
        XCTAssertEqual(RangeHeader.singleSpan("bytes=20971520-20987903", length: 67_108_864), ByteSpan(first: 20_971_520, last: 20_987_903))
        XCTAssertEqual(RangeHeader.singleSpan("bytes=-10", length: 100), ByteSpan(first: 90, last: 99))
        XCTAssertEqual(RangeHeader.singleSpan("bytes=90-", length: 100), ByteSpan(first: 90, last: 99))
        XCTAssertEqual(RangeHeader.singleSpan("bytes=90-1000", length: 100), ByteSpan(first: 90, last: 99))
        for declined in ["bytes=100-", "bytes=-0", "bytes=1-2,3-4", " bytes=1-2", "bytes=5-4"] {
            XCTAssertNil(RangeHeader.singleSpan(declined, length: 100), declined)
        }
        XCTAssertNil(RangeHeader.singleSpan("bytes=-5", length: 0)) // an empty body: the general plan sends 200
    }
}
