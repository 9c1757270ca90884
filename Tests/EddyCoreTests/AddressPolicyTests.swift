import EddyCore
import XCTest

final class AddressPolicyTests: XCTestCase {
    private func v4(_ s: String) -> [UInt8] { AddressPolicy.parseIPv4(s)! }

    func test_parseIPv4_dottedQuad_isBytes() {
        XCTAssertEqual(AddressPolicy.parseIPv4("192.168.1.20"), [192, 168, 1, 20])
        XCTAssertEqual(AddressPolicy.parseIPv4("0.0.0.0"), [0, 0, 0, 0])
        XCTAssertEqual(AddressPolicy.parseIPv4("255.255.255.255"), [255, 255, 255, 255])
        XCTAssertEqual(AddressPolicy.parseIPv4("127.000.000.001"), [127, 0, 0, 1])
    }

    func test_parseIPv4_malformed_isNil() {
        for s in ["", "1.2.3", "1.2.3.4.5", "1.2.3.256", "1..3.4", "1.2.3.", "a.b.c.d", "1.2.3.-4", "0001.2.3.4", "localhost", "::1"] {
            XCTAssertNil(AddressPolicy.parseIPv4(s), s)
        }
    }

    func test_isInternalIPv4_specialRanges_areInternal() {
        for s in ["0.0.0.0", "0.1.2.3", "10.0.0.1", "10.255.255.255", "127.0.0.1", "127.255.0.1", "100.64.0.1", "100.127.255.255",
                  "169.254.169.254", "172.16.0.1", "172.31.255.255", "192.168.0.1", "192.0.0.1", "198.18.0.1", "198.19.255.255",
                  "224.0.0.1", "239.255.255.250", "240.0.0.1", "255.255.255.255"] {
            XCTAssertTrue(AddressPolicy.isInternal(ipv4: v4(s)), s)
        }
    }

    func test_isInternalIPv4_publicAddresses_areNotInternal() {
        for s in ["1.1.1.1", "8.8.8.8", "100.63.255.255", "100.128.0.1", "169.253.0.1", "172.15.255.255", "172.32.0.1",
                  "192.167.0.1", "192.0.1.1", "198.17.0.1", "198.20.0.1", "223.255.255.255", "11.0.0.1", "126.0.0.1"] {
            XCTAssertFalse(AddressPolicy.isInternal(ipv4: v4(s)), s)
        }
    }

    func test_isInternalIPv4_wrongByteCount_isInternal() {
        XCTAssertTrue(AddressPolicy.isInternal(ipv4: [8, 8, 8]))
        XCTAssertTrue(AddressPolicy.isInternal(ipv4: []))
    }

    private func v6(_ groups: [UInt16]) -> [UInt8] { groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }

    func test_isInternalIPv6_specialRanges_areInternal() {
        XCTAssertTrue(AddressPolicy.isInternal(ipv6: v6([0, 0, 0, 0, 0, 0, 0, 0])), "::")
        XCTAssertTrue(AddressPolicy.isInternal(ipv6: v6([0, 0, 0, 0, 0, 0, 0, 1])), "::1")
        XCTAssertTrue(AddressPolicy.isInternal(ipv6: v6([0xFE80, 0, 0, 0, 0, 0, 0, 1])), "fe80::1")
        XCTAssertTrue(AddressPolicy.isInternal(ipv6: v6([0xFEBF, 0, 0, 0, 0, 0, 0, 1])), "febf::1")
        XCTAssertTrue(AddressPolicy.isInternal(ipv6: v6([0xFC00, 0, 0, 0, 0, 0, 0, 1])), "fc00::1")
        XCTAssertTrue(AddressPolicy.isInternal(ipv6: v6([0xFD12, 0x3456, 0, 0, 0, 0, 0, 1])), "fd12:3456::1")
        XCTAssertTrue(AddressPolicy.isInternal(ipv6: v6([0xFF02, 0, 0, 0, 0, 0, 0, 1])), "ff02::1")
        XCTAssertTrue(AddressPolicy.isInternal(ipv6: v6([0, 0, 0, 0, 0, 0xFFFF, 0x7F00, 0x0001])), "::ffff:127.0.0.1")
        XCTAssertTrue(AddressPolicy.isInternal(ipv6: v6([0, 0, 0, 0, 0, 0xFFFF, 0x0A00, 0x0001])), "::ffff:10.0.0.1")
        XCTAssertTrue(AddressPolicy.isInternal(ipv6: v6([0, 0, 0, 0, 0, 0, 0x0808, 0x0808])), "::8.8.8.8 (IPv4-compatible)")
    }

    func test_isInternalIPv6_publicAddresses_areNotInternal() {
        XCTAssertFalse(AddressPolicy.isInternal(ipv6: v6([0x2001, 0x4860, 0x4860, 0, 0, 0, 0, 0x8888])), "2001:4860:4860::8888")
        XCTAssertFalse(AddressPolicy.isInternal(ipv6: v6([0x2606, 0x4700, 0, 0, 0, 0, 0, 0x1111])), "2606:4700::1111")
        XCTAssertFalse(AddressPolicy.isInternal(ipv6: v6([0, 0, 0, 0, 0, 0xFFFF, 0x0808, 0x0808])), "::ffff:8.8.8.8")
        XCTAssertTrue(AddressPolicy.isInternal(ipv6: v6([0xFEC0, 0, 0, 0, 0, 0, 0, 1])), "fec0::1: deprecated site-local (RFC 3879), not routable")
        XCTAssertFalse(AddressPolicy.isInternal(ipv6: v6([0xFE00, 0, 0, 0, 0, 0, 0, 1])), "fe00::1 is outside fe80::/10")
        XCTAssertFalse(AddressPolicy.isInternal(ipv6: v6([0xFB00, 0, 0, 0, 0, 0, 0, 1])), "fb00::1 is outside fc00::/7")
    }

    func test_isInternalIPv6_wrongByteCount_isInternal() {
        XCTAssertTrue(AddressPolicy.isInternal(ipv6: [0x20, 0x01]))
    }

    func test_isInternalLiteral_localhostNames_areInternal() {
        XCTAssertTrue(AddressPolicy.isInternalLiteral(host: "localhost"))
        XCTAssertTrue(AddressPolicy.isInternalLiteral(host: "LOCALHOST"))
        XCTAssertTrue(AddressPolicy.isInternalLiteral(host: "foo.localhost"))
        XCTAssertFalse(AddressPolicy.isInternalLiteral(host: "localhost.example.com"))
        XCTAssertFalse(AddressPolicy.isInternalLiteral(host: "notlocalhost"))
    }

    func test_isInternalLiteral_ipv4Literals_followIsInternal() {
        XCTAssertTrue(AddressPolicy.isInternalLiteral(host: "127.0.0.1"))
        XCTAssertTrue(AddressPolicy.isInternalLiteral(host: "10.1.2.3"))
        XCTAssertTrue(AddressPolicy.isInternalLiteral(host: "169.254.169.254"))
        XCTAssertFalse(AddressPolicy.isInternalLiteral(host: "93.184.216.34"))
    }

    func test_isInternalLiteral_ipv6Literals_areClassified() {
        for h in ["::1", "::", "fe80::1", "FE80::1%25eth0", "fc00::1", "fd00::1", "::ffff:127.0.0.1", "ff02::1"] {
            XCTAssertTrue(AddressPolicy.isInternalLiteral(host: h), h)
        }
        XCTAssertFalse(AddressPolicy.isInternalLiteral(host: "2001:db8::1"))
    }

    func test_isInternalLiteral_everyLoopbackSpelling_isInternal() {
        for h in ["0:0:0:0:0:0:0:1", "0000::0001", "::127.0.0.1", "0:0:0:0:0:ffff:7f00:1", "::ffff:7f00:1", "::1%25lo",
                  "::1%lo", "0:0::1", "::0:1", "::ffff:0:127.0.0.1", "64:ff9b::127.0.0.1", "2002:7f00:1::", "2002:0a00:0001::1",
                  "fec0::1", "FE80:0:0:0:0:0:0:1", "[::1]", "::1:", ":::1", "1::2::3", "zz::1", "localhost.", "a.localhost."] {
            XCTAssertTrue(AddressPolicy.isInternalLiteral(host: h), h)
        }
        for h in ["2001:4860:4860::8888", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::8.8.8.8", "2002:0808:0808::1"] {
            XCTAssertFalse(AddressPolicy.isInternalLiteral(host: h), h)
        }
    }

    func test_isInternalLiteral_publicNames_areLeftToResolution() {
        XCTAssertFalse(AddressPolicy.isInternalLiteral(host: "cdn.example.com"))
        XCTAssertFalse(AddressPolicy.isInternalLiteral(host: "fc.example.com"))
    }
}
