import EddyCore
import XCTest

final class StoredResponseHeadersTests: XCTestCase {
    func test_compose_appendsMetadataValidatorsAcceptRangesAndVia_afterTheReplayedFields() {
        var replayed = HTTPHeaders()
        replayed.add("Cache-Control", "max-age=60")
        replayed.add("Content-Language", "en")
        let h = StoredResponseHeaders.compose(replayed: replayed, contentType: "video/mp4", etag: "\"a\"",
                                              lastModified: "Sun, 22 Nov 2026 07:00:00 GMT", via: "1.1 eddy")
        XCTAssertEqual(h.map(\.name), ["Cache-Control", "Content-Language", "Content-Type", "ETag", "Last-Modified", "Accept-Ranges", "Via"])
        XCTAssertEqual(h["ETag"], "\"a\"")
        XCTAssertEqual(h["Accept-Ranges"], "bytes")
        XCTAssertEqual(h["Via"], "1.1 eddy")
    }

    func test_compose_leavesOutMissingMetadata() {
        let h = StoredResponseHeaders.compose(replayed: HTTPHeaders(), contentType: nil, etag: nil, lastModified: nil, via: "1.1 e")
        XCTAssertEqual(h.map(\.name), ["Accept-Ranges", "Via"])
    }

    func test_compose_advertisesRangesOnlyForA200() {
        for status in [404, 410, 301, 204] {
            let h = StoredResponseHeaders.compose(replayed: HTTPHeaders(), status: status, contentType: "text/plain", etag: nil,
                                                  lastModified: nil, via: "1.1 e")
            XCTAssertNil(h["Accept-Ranges"], "\(status)")
        }
        XCTAssertEqual(StoredResponseHeaders.compose(replayed: HTTPHeaders(), status: 200, contentType: nil, etag: nil,
                                                     lastModified: nil, via: "1.1 e")["Accept-Ranges"], "bytes")
    }
}
