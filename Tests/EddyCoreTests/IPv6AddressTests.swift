import XCTest
@testable import EddyCore

final class IPv6AddressTests: XCTestCase {
    private func bytes(_ groups: [UInt16]) -> [UInt8] { groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }

    func test_parse_everySpellingOfLoopback_isTheSameBytes() {
        let loopback = bytes([0, 0, 0, 0, 0, 0, 0, 1])
        for s in ["::1", "0:0:0:0:0:0:0:1", "0000:0000:0000:0000:0000:0000:0000:0001", "0000::0001", "0::1", "::0:1",
                  "0:0:0::0:0:1", "::1%25lo", "::1%eth0", "::0.0.0.1"] {
            XCTAssertEqual(IPv6Address.parse(s), loopback, s)
        }
    }

    func test_parse_embeddedIPv4_fillsTheLastTwoGroups() {
        XCTAssertEqual(IPv6Address.parse("::ffff:127.0.0.1"), bytes([0, 0, 0, 0, 0, 0xFFFF, 0x7F00, 1]))
        XCTAssertEqual(IPv6Address.parse("::127.0.0.1"), bytes([0, 0, 0, 0, 0, 0, 0x7F00, 1]))
        XCTAssertEqual(IPv6Address.parse("1:2:3:4:5:6:10.0.0.1"), bytes([1, 2, 3, 4, 5, 6, 0x0A00, 1]))
    }

    func test_parse_compressionAtEitherEnd_isExpanded() {
        XCTAssertEqual(IPv6Address.parse("::"), bytes([0, 0, 0, 0, 0, 0, 0, 0]))
        XCTAssertEqual(IPv6Address.parse("fe80::"), bytes([0xFE80, 0, 0, 0, 0, 0, 0, 0]))
        XCTAssertEqual(IPv6Address.parse("2001:db8::8:800:200c:417a"), bytes([0x2001, 0xDB8, 0, 0, 8, 0x800, 0x200C, 0x417A]))
        XCTAssertEqual(IPv6Address.parse("FF01::101"), bytes([0xFF01, 0, 0, 0, 0, 0, 0, 0x101]))
    }

    func test_parse_malformed_isNil() {
        for s in ["", ":", ":::", "1::2::3", "12345::", "g::1", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "::1:", ":1::",
                  "1:2:3:4:5:6:7::8:9", "::256.0.0.1", "::1.2.3", "1.2.3.4::", "::ffff:1.2.3.4:5", "[::1]", " ::1"] {
            XCTAssertNil(IPv6Address.parse(s), s)
        }
    }

    func test_parse_eightGroupsWithCompression_isNil() {
        XCTAssertNil(IPv6Address.parse("1:2:3:4::5:6:7:8"))
        XCTAssertNotNil(IPv6Address.parse("1:2:3::5:6:7:8"))
    }
}
