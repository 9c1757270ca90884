import EddyCore
import XCTest

/// Field values keep their bytes (RFC 9110 section 5.5, obs-text).
final class FieldTextTests: XCTestCase {
    private func roundTrip(_ bytes: [UInt8]) -> [UInt8] {
        FieldText.encode(bytes.withUnsafeBufferPointer { FieldText.decode($0) })
    }

    func test_roundTrip_keepsEveryByte() {
        XCTAssertEqual(roundTrip([0x61, 0xFF, 0xFE, 0x62]), [0x61, 0xFF, 0xFE, 0x62])
        XCTAssertEqual(roundTrip(Array("Jos\u{E9}".utf8)), Array("Jos\u{E9}".utf8), "UTF-8 bytes pass as they came")
        XCTAssertEqual(roundTrip(Array(0x80...0xFF)), Array(0x80...0xFF))
        XCTAssertEqual(roundTrip(Array("plain ascii".utf8)), Array("plain ascii".utf8))
    }

    func test_encode_textBeyondLatin1_isItsUTF8() {
        XCTAssertEqual(FieldText.encode("\u{263A}"), Array("\u{263A}".utf8))
    }
}
