import EddyCore
import XCTest

final class ByteSizeTests: XCTestCase {
    func test_parse_plainNumber_isBytes() {
        XCTAssertEqual(ByteSize.parse("0"), 0)
        XCTAssertEqual(ByteSize.parse("512"), 512)
    }

    func test_parse_binarySuffixes_areMultiples() {
        XCTAssertEqual(ByteSize.parse("1K"), 1024)
        XCTAssertEqual(ByteSize.parse("512M"), 512 << 20)
        XCTAssertEqual(ByteSize.parse("10G"), 10 << 30)
        XCTAssertEqual(ByteSize.parse("2T"), 2 << 40)
    }

    func test_parse_lowercaseSuffix_isAccepted() {
        XCTAssertEqual(ByteSize.parse("4k"), 4096)
        XCTAssertEqual(ByteSize.parse("1g"), 1 << 30)
    }

    func test_parse_byteUnitAfterSuffix_isAccepted() {
        XCTAssertEqual(ByteSize.parse("1GiB"), 1 << 30)
        XCTAssertEqual(ByteSize.parse("1GB"), 1 << 30)
        XCTAssertEqual(ByteSize.parse("1gib"), 1 << 30)
        XCTAssertEqual(ByteSize.parse("3KiB"), 3072)
        XCTAssertEqual(ByteSize.parse("5MB"), 5 << 20)
    }

    func test_parse_whitespace_isTrimmed() {
        XCTAssertEqual(ByteSize.parse("  256M "), 256 << 20)
        XCTAssertEqual(ByteSize.parse("1 G"), 1 << 30)
    }

    func test_parse_invalid_isNil() {
        for s in ["", "G", "GiB", "abc", "-1", "-1G", "1.5G", "1X", "1GG", "M1"] {
            XCTAssertNil(ByteSize.parse(s), s)
        }
    }

    func test_parse_overflow_isNil() {
        XCTAssertNil(ByteSize.parse("9999999999999999999999T"))
        XCTAssertNil(ByteSize.parse("8388608T")) // 2^23 * 2^40 = 2^63
        XCTAssertEqual(ByteSize.parse("1048576T"), 1 << 60)
    }

    func test_format_exactMultiples_useLargestSuffix() {
        XCTAssertEqual(ByteSize.format(256 << 20), "256M")
        XCTAssertEqual(ByteSize.format(1 << 30), "1G")
        XCTAssertEqual(ByteSize.format(1536 << 10), "1536K")
        XCTAssertEqual(ByteSize.format(3 << 40), "3T")
    }

    func test_format_nonMultipleOrZero_isBytes() {
        XCTAssertEqual(ByteSize.format(0), "0")
        XCTAssertEqual(ByteSize.format(1000), "1000")
        XCTAssertEqual(ByteSize.format(1025), "1025")
    }

    func test_formatThenParse_variousSizes_roundTrip() {
        for n in [0, 1, 1024, 1 << 20, 5 << 30, 7 << 40, 123_456] {
            XCTAssertEqual(ByteSize.parse(ByteSize.format(n)), n)
        }
    }
}
