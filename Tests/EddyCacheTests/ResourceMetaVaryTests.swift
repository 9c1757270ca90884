import EddyCache
import EddyCore
import XCTest

final class ResourceMetaVaryTests: XCTestCase {
    func test_marker_namesItsFields_andStoredResponsesAreNotMarkers() {
        let m = ResourceMeta.varyMarker(fields: ["accept-language", "cookie"], storedAt: 5)
        XCTAssertEqual(m.varyMarkerFields, ["accept-language", "cookie"])
        XCTAssertEqual(m.length, 0)
        let stored = ResourceMeta(length: 10, etag: nil, lastModified: nil, contentType: nil,
                                  headers: HTTPHeaders([("Vary", "Cookie")]), storedAt: 5)
        XCTAssertNil(stored.varyMarkerFields)
        XCTAssertNil(ResourceMeta(length: 1, etag: nil, lastModified: nil, contentType: nil, headers: HTTPHeaders(),
                                  storedAt: 1, status: 404).varyMarkerFields)
    }
}
