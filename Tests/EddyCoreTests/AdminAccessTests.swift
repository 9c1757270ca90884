import EddyCore
import XCTest

/// The admin listener's access rule (issue 14).
final class AdminAccessTests: XCTestCase {
    func test_loopbackAddresses() {
        for h in ["127.0.0.1", "127.1.2.3", "localhost", "LOCALHOST", "::1", "[::1]"] { XCTAssertTrue(AdminAccess.isLoopback(host: h), h) }
        for h in ["0.0.0.0", "192.168.1.2", "::", "127.0.0.1.evil", "1270.0.0.1", "127.0.0", "127.0.0.256", "", "10.127.0.1"] {
            XCTAssertFalse(AdminAccess.isLoopback(host: h), h)
        }
    }

    func test_bearerToken() {
        XCTAssertTrue(AdminAccess.allows(authorization: "Bearer s3cret", token: "s3cret"))
        XCTAssertTrue(AdminAccess.allows(authorization: "bearer  s3cret ", token: "s3cret"), "scheme case and OWS")
        for a in [nil, "", "Bearer", "Bearer ", "Bearer s3cre", "Bearer s3cretX", "Basic s3cret", "Bearer S3CRET", "s3cret"] {
            XCTAssertFalse(AdminAccess.allows(authorization: a, token: "s3cret"), a ?? "nil")
        }
        XCTAssertFalse(AdminAccess.allows(authorization: "Bearer ", token: ""), "an empty token never matches")
    }
}
