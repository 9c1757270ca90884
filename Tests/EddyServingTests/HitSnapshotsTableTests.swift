@testable import EddyServing
import EddyCore
import EddyLoop
import Glibc
import XCTest

/// When the home loop publishes a data file again: an entry is replaced once it expired, or once
/// its resource has stored more than the entry says (a player's next seek into a file still
/// filling), and not while it still says all there is.
final class HitSnapshotsTableTests: XCTestCase {
    private func publishFile(_ s: HitSnapshots, stored: ByteRangeSet?) throws {
        let fd = open("/dev/null", O_RDONLY)
        defer { close(fd) }
        let d = try XCTUnwrap(SharedDescriptor(duplicating: fd))
        s.publish(target: "/f.bin", key: "k", headers: HeaderBlock(HTTPHeaders()), body: .file(d), length: 1000,
                  stored: stored, storedAt: 0, lifetime: 1 << 30)
    }

    func testAnEntryOfAPartlyStoredFileIsReplacedOnceMoreIsStored() throws {
        let s = HitSnapshots()
        XCTAssertTrue(s.wantsFile(for: "/f.bin", stored: ByteRangeSet([0..<100])))
        try publishFile(s, stored: ByteRangeSet([0..<100]))
        XCTAssertFalse(s.wantsFile(for: "/f.bin", stored: ByteRangeSet([0..<100])), "nothing new: the entry stays")
        XCTAssertTrue(s.wantsFile(for: "/f.bin", stored: ByteRangeSet([0..<100, 500..<600])), "a span stored since")
        XCTAssertTrue(s.wantsFile(for: "/f.bin", stored: nil), "complete since")
        XCTAssertTrue(s.wantsFile(for: "/other.bin", stored: nil), "another target, room left")
    }

    func testAnEntryOfACompleteFileStaysUntilItExpires() throws {
        let s = HitSnapshots()
        try publishFile(s, stored: nil)
        XCTAssertFalse(s.wantsFile(for: "/f.bin", stored: nil))
        XCTAssertNotNil(s.entry(for: "/f.bin", now: 1)?.entry.isFile)
        s.revoke(key: "k")
        XCTAssertTrue(s.wantsFile(for: "/f.bin", stored: nil), "revoked: published again")
    }
}
