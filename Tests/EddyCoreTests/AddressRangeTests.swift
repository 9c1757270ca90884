import EddyCore
import XCTest

final class AddressRangeTests: XCTestCase {
    func test_blocksAndSingleAddresses() {
        let lan = AddressRange("10.1.0.0/16")!
        XCTAssertTrue(lan.contains("10.1.200.3"))
        XCTAssertFalse(lan.contains("10.2.0.1"))
        XCTAssertTrue(lan.contains("::ffff:10.1.0.9"), "IPv4-mapped")
        XCTAssertTrue(AddressRange("127.0.0.1")!.contains("127.0.0.1"))
        XCTAssertFalse(AddressRange("127.0.0.1")!.contains("127.0.0.2"))
        XCTAssertTrue(AddressRange("fd00::/8")!.contains("fd12::1"))
        XCTAssertFalse(AddressRange("fd00::/8")!.contains("fe80::1"))
        XCTAssertTrue(AddressRange("0.0.0.0/0")!.contains("203.0.113.9"))
        XCTAssertTrue(AddressRange("10.0.0.0/13")!.contains("10.7.255.255"))
        XCTAssertFalse(AddressRange("10.0.0.0/13")!.contains("10.8.0.0"))
    }

    func test_malformedRangesAndPeers() {
        for bad in ["", "10.0.0.0/33", "10.0.0/8", "host.example", "::1/129", "10.0.0.0/-1", "10.0.0.0/x"] {
            XCTAssertNil(AddressRange(bad), bad)
        }
        XCTAssertFalse(AddressRange("10.0.0.0/8")!.contains("-"))
        XCTAssertFalse(AddressRange("10.0.0.0/8")!.contains("fd00::1"))
    }
}
