import EddyCore
import XCTest

final class ViaLoopTests: XCTestCase {
    func test_anEntryReceivedByThisNameIsALoop() {
        XCTAssertTrue(ViaLoop.names(["1.1 edge-1"], "edge-1"))
        XCTAssertTrue(ViaLoop.names(["1.1 player-proxy, HTTP/1.1 parent-2 (eddy)"], "parent-2"))
        XCTAssertTrue(ViaLoop.names(["1.0 fred", "1.1 Edge-1"], "edge-1"))
    }

    func test_otherNamesPrefixesAndCommentsAreNot() {
        XCTAssertFalse(ViaLoop.names([], "edge-1"))
        XCTAssertFalse(ViaLoop.names(["1.1 edge-10"], "edge-1"))
        XCTAssertFalse(ViaLoop.names(["1.1 parent-1 (edge-1)"], "edge-1"))
        XCTAssertFalse(ViaLoop.names(["edge-1"], "edge-1"), "a received-by needs its protocol before it")
        XCTAssertFalse(ViaLoop.names([" , ,"], "edge-1"))
    }
}
