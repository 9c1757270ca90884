import EddyCore
import XCTest

/// RFC 9111 section 3 (storing responses) and RFC 9110 section 7.6.1 (hop-by-hop fields).
final class StoragePolicyTests: XCTestCase {
    private func refusal(_ status: Int = 200, _ fields: [(String, String)] = []) -> String? {
        StoragePolicy.refusal(status: status, headers: HTTPHeaders(fields))
    }

    func test_refusal_plain200Or206_isNil() {
        XCTAssertNil(refusal(200))
        XCTAssertNil(refusal(206))
        XCTAssertNil(refusal(200, [("Cache-Control", "public, max-age=60")]))
    }

    func test_refusal_heuristicallyCacheableStatus_isNil() {
        // RFC 9110 section 15.1: stored whole, with a heuristic lifetime when they carry none.
        for status in [203, 300, 301, 308, 404, 405, 410, 414, 501] { XCTAssertNil(refusal(status), "\(status)") }
    }

    func test_refusal_otherStatus_withoutExplicitFreshness_isRefused() {
        for status in [204, 302, 303, 307, 403, 304, 500, 502, 503, 504, 100] {
            XCTAssertEqual(refusal(status), "status \(status)")
        }
    }

    func test_refusal_redirectOrClientError_withExplicitFreshness_isNil() {
        // RFC 9111 section 3: Expires, max-age, s-maxage or public make any understood final status storable.
        XCTAssertNil(refusal(302, [("Cache-Control", "max-age=60")]))
        XCTAssertNil(refusal(307, [("Cache-Control", "public")]))
        XCTAssertNil(refusal(403, [("Expires", "Sun, 06 Nov 2094 08:49:37 GMT")]))
        XCTAssertNil(refusal(303, [("CDN-Cache-Control", "s-maxage=5")]))
    }

    func test_refusal_serverError_evenWithExplicitFreshness_isRefused() {
        // A passing 5xx must never replace a good copy (stale-if-error serves that instead).
        XCTAssertEqual(refusal(503, [("Cache-Control", "max-age=60")]), "status 503")
        XCTAssertEqual(refusal(500, [("Cache-Control", "public, max-age=60")]), "status 500")
    }

    func test_refusal_noStore_isRefused() {
        XCTAssertEqual(refusal(200, [("Cache-Control", "max-age=60, no-store")]), "no-store")
    }

    func test_refusal_noStoreInSecondField_isRefused() {
        XCTAssertEqual(refusal(200, [("Cache-Control", "max-age=60"), ("cache-control", "no-store")]), "no-store")
    }

    func test_refusal_private_isRefused() {
        XCTAssertEqual(refusal(200, [("Cache-Control", "private")]), "private")
        XCTAssertEqual(refusal(206, [("Cache-Control", "PRIVATE, max-age=10")]), "private")
    }

    func test_refusal_qualifiedPrivate_isRefused() {
        // RFC 9111 section 5.2.2.7: the listed fields MUST NOT be stored by a shared cache; eddy
        // replays every stored end-to-end field, so it must not store the response.
        XCTAssertEqual(refusal(200, [("Cache-Control", "private=\"X-User\""), ("X-User", "alice")]), "private")
    }

    func test_refusal_noCache_isStored() {
        // no-cache permits storing; it only requires revalidation before reuse.
        XCTAssertNil(refusal(200, [("Cache-Control", "no-cache")]))
    }

    func test_refusal_varyAcceptEncoding_isNil() {
        XCTAssertNil(refusal(200, [("Vary", "Accept-Encoding")]))
        XCTAssertNil(refusal(200, [("vary", " accept-encoding ")]))
        XCTAssertNil(refusal(200, [("Vary", "Accept-Encoding"), ("Vary", "ACCEPT-ENCODING")]))
    }

    func test_refusal_varyOtherField_isStoredPerVariant() {
        XCTAssertNil(refusal(200, [("Vary", "Cookie")]))
        XCTAssertNil(refusal(200, [("Vary", "Accept-Encoding, Cookie")]))
        XCTAssertNil(refusal(200, [("Vary", "Accept-Encoding"), ("Vary", "User-Agent")]))
    }

    func test_refusal_varyStar_isRefused() {
        XCTAssertEqual(refusal(200, [("Vary", "*")]), "vary *")
        XCTAssertEqual(refusal(200, [("Vary", "Accept-Language, *")]), "vary *")
        XCTAssertEqual(refusal(200, [("Vary", "Accept-Language"), ("Vary", " * ")]), "vary *")
    }

    func test_refusal_setCookie_isRefused() {
        XCTAssertEqual(refusal(200, [("Set-Cookie", "session=1")]), "set-cookie")
        XCTAssertEqual(refusal(200, [("set-cookie", "a=b"), ("Cache-Control", "max-age=60")]), "set-cookie")
    }

    func test_refusal_setCookieWithPublic_isStored() {
        XCTAssertNil(refusal(200, [("Set-Cookie", "a=b"), ("Cache-Control", "public, max-age=60")]))
    }

    func test_refusal_badStatusWithNoStore_reportsStatus_andAStorableStatusReportsTheDirective() {
        XCTAssertEqual(refusal(500, [("Cache-Control", "no-store")]), "status 500")
        XCTAssertEqual(refusal(404, [("Cache-Control", "no-store")]), "no-store")
        XCTAssertEqual(refusal(301, [("Cache-Control", "private")]), "private")
    }

    func test_replayed_mixedFields_dropsHopByHopAndComputed() {
        let h = HTTPHeaders([
            ("Cache-Control", "max-age=60"), ("Connection", "close"), ("Keep-Alive", "timeout=5"), ("Transfer-Encoding", "chunked"),
            ("Content-Length", "10"), ("Content-Range", "bytes 0-9/10"), ("ETag", "\"x\""), ("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT"),
            ("Content-Type", "video/mp4"), ("Set-Cookie", "a=b"), ("Age", "3"), ("Via", "1.1 x"), ("Cache-Status", "x; hit"),
            ("Alt-Svc", "h3=\":443\""), ("Accept-Ranges", "bytes"), ("Upgrade", "h2c"), ("TE", "trailers"), ("Trailer", "X"),
            ("Proxy-Authenticate", "Basic"), ("Proxy-Authorization", "x"), ("Proxy-Connection", "keep-alive"),
            ("Content-Encoding", "identity"), ("Expires", "0"), ("X-Custom", "1"),
        ])
        let out = StoragePolicy.replayed(h)
        // Via and Cache-Status stay: the next hop adds its entries after them (a parent tier's).
        XCTAssertEqual(out.fields.map(\.name), ["Cache-Control", "Via", "Cache-Status", "Content-Encoding", "Expires", "X-Custom"])
        XCTAssertEqual(out["x-custom"], "1")
    }

    func test_replayed_anyCase_dropsAndKeepsRepeatedFields() {
        let out = StoragePolicy.replayed(HTTPHeaders([("CONNECTION", "close"), ("Link", "<a>"), ("link", "<b>")]))
        XCTAssertEqual(out, HTTPHeaders([("Link", "<a>"), ("link", "<b>")]))
    }

    func test_hopByHop_connectionFields_areListedEndToEndAreNot() {
        for n in ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade",
                  "proxy-authenticate", "proxy-authorization"] {
            XCTAssertTrue(StoragePolicy.hopByHop.contains(n), n)
            XCTAssertTrue(StoragePolicy.notReplayed.contains(n), n)
        }
        for n in ["content-type", "etag", "cache-control", "content-length"] {
            XCTAssertFalse(StoragePolicy.hopByHop.contains(n), n)
        }
    }

    func test_connectionNamedFields_areNeitherStoredNorForwarded() {
        let h = HTTPHeaders([("Connection", "X-Secret, close"), ("X-Secret", "1"), ("X-Public", "2"), ("Keep-Alive", "5")])
        XCTAssertEqual(StoragePolicy.replayed(h).map(\.name), ["X-Public"])
        XCTAssertEqual(StoragePolicy.forwarded(h).map(\.name), ["X-Public"])
    }

    func test_targetedField_decidesStorage() {
        let h = HTTPHeaders([("Cache-Control", "max-age=60"), ("CDN-Cache-Control", "no-store")])
        XCTAssertEqual(StoragePolicy.refusal(status: 200, headers: h), "no-store")
        let allowed = HTTPHeaders([("Cache-Control", "private"), ("CDN-Cache-Control", "max-age=60")])
        XCTAssertNil(StoragePolicy.refusal(status: 200, headers: allowed), "RFC 9213: the targeted field replaces Cache-Control")
    }
}
