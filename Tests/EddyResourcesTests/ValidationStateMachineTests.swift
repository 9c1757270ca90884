import EddyCache
import EddyCore
@testable import EddyResources
import XCTest

/// Discovery and revalidation: the first step of a request, and what the origin's head means.
final class ValidationStateMachineTests: XCTestCase {
    private func headers(_ fields: [(String, String)]) -> HTTPHeaders {
        var h = HTTPHeaders()
        for (n, v) in fields { h.add(n, v) }
        return h
    }

    private func stored(etag: String? = "\"v1\"", length: Int? = 1000, cacheControl: String = "max-age=60") -> ResourceMeta {
        ResourceMeta(length: length, etag: etag, lastModified: nil, contentType: "video/mp4",
                     headers: headers([("Cache-Control", cacheControl)]), storedAt: 100)
    }

    func test_lookup_collapsesRequestsOnARevalidationOrDiscoveryInFlight() {
        typealias V = ValidationStateMachine
        XCTAssertEqual(V.lookup(stored: true, fresh: true, revalidating: false, discovering: false), .hit)
        XCTAssertEqual(V.lookup(stored: true, fresh: false, revalidating: false, discovering: false), .revalidate)
        XCTAssertEqual(V.lookup(stored: true, fresh: true, revalidating: true, discovering: false), .joinRevalidation)
        XCTAssertEqual(V.lookup(stored: false, fresh: false, revalidating: false, discovering: true), .joinDiscovery)
        XCTAssertEqual(V.lookup(stored: false, fresh: false, revalidating: false, discovering: false), .discover)
    }

    func test_discovery_storesA200_andPassesAnUnstorableOneThrough() {
        var d = ValidationStateMachine(kind: .discovery, asked: nil, stored: nil)
        let ok = d.headArrived(status: 200, headers: headers([("ETag", "\"a\""), ("Content-Type", "video/mp4")]), contentLength: 500, now: 7)
        guard case let .store(meta, body) = ok else { return XCTFail("\(ok)") }
        XCTAssertEqual(meta.length, 500)
        XCTAssertEqual(meta.etag, "\"a\"")
        XCTAssertEqual(meta.storedAt, 7)
        XCTAssertEqual(body, .init(start: 0, length: 500, isFull: true, openEnded: false))
        XCTAssertEqual(d.headArrived(status: 200, headers: HTTPHeaders(), contentLength: 1, now: 7), .fail(reason: "a second head"))
        var p = ValidationStateMachine(kind: .discovery, asked: nil, stored: nil)
        XCTAssertEqual(p.headArrived(status: 200, headers: headers([("Cache-Control", "private")]), contentLength: 5, now: 7),
                       .passThrough(refusal: "private"))
        var e = ValidationStateMachine(kind: .discovery, asked: nil, stored: nil)
        XCTAssertEqual(e.headArrived(status: 503, headers: HTTPHeaders(), contentLength: 5, now: 7), .passThrough(refusal: "status 503"))
    }

    func test_discovery_ofA404ToARangeRequest_storesTheWholeBodyWithItsStatus() {
        var d = ValidationStateMachine(kind: .discovery, asked: .span(first: 100, last: 199), stored: nil)
        let a = d.headArrived(status: 404, headers: headers([("Content-Type", "text/html")]), contentLength: 42, now: 7)
        guard case let .store(meta, body) = a else { return XCTFail("\(a)") }
        XCTAssertEqual(meta.status, 404)
        XCTAssertEqual(meta.length, 42)
        XCTAssertEqual(body, .init(start: 0, length: 42, isFull: true, openEnded: false))
    }

    func test_discovery_of206_storesStatus200_theRepresentationItsPartsBelongTo() {
        var d = ValidationStateMachine(kind: .discovery, asked: .span(first: 0, last: 9), stored: nil)
        let a = d.headArrived(status: 206, headers: headers([("Content-Range", "bytes 0-9/100"), ("ETag", "\"a\"")]), contentLength: 10, now: 7)
        guard case let .store(meta, _) = a else { return XCTFail("\(a)") }
        XCTAssertEqual(meta.status, 200)
    }

    func test_aStored404_answeredWith200OfTheSameValidator_isANewVersion() {
        var old = stored()
        old.status = 404
        var v = ValidationStateMachine(kind: .revalidation, asked: nil, stored: old)
        let a = v.headArrived(status: 200, headers: headers([("ETag", "\"v1\"")]), contentLength: 1000, now: 9)
        guard case let .newVersion(meta, _) = a else { return XCTFail("\(a)") }
        XCTAssertEqual(meta.status, 200)
    }

    func test_discovery_ofASuffixRange_isOpenEndedFromWhereTheBodyStarts() {
        var d = ValidationStateMachine(kind: .discovery, asked: .suffix(100), stored: nil)
        let a = d.headArrived(status: 206, headers: headers([("Content-Range", "bytes 900-999/1000"), ("ETag", "\"a\"")]),
                              contentLength: 100, now: 1)
        guard case let .store(_, body) = a else { return XCTFail("\(a)") }
        XCTAssertEqual(body, .init(start: 900, length: 1000, isFull: false, openEnded: true, end: 1000))
    }

    func test_aBad206_isRejected() {
        var d = ValidationStateMachine(kind: .range, asked: .span(first: 0, last: 99), stored: stored())
        let a = d.headArrived(status: 206, headers: headers([("Content-Range", "bytes 100-199/1000"), ("ETag", "\"v1\"")]),
                              contentLength: 100, now: 1)
        guard case let .fail(reason) = a else { return XCTFail("\(a)") }
        XCTAssertTrue(reason.hasPrefix("bad 206"), reason)
        var noRange = ValidationStateMachine(kind: .discovery, asked: nil, stored: nil)
        XCTAssertEqual(noRange.headArrived(status: 206, headers: headers([("Content-Range", "bytes 0-9/10")]), contentLength: 10, now: 1),
                       .fail(reason: "206 to a request without Range"))
    }

    func test_a304_refreshesTheStoredHeaders() {
        var v = ValidationStateMachine(kind: .revalidation, asked: .span(first: 0, last: 99), stored: stored())
        let a = v.headArrived(status: 304, headers: headers([("Cache-Control", "max-age=600"), ("ETag", "\"v1\"")]),
                              contentLength: nil, now: 500)
        guard case let .refresh(meta) = a else { return XCTFail("\(a)") }
        XCTAssertEqual(meta.headers["Cache-Control"], "max-age=600", "RFC 9111 section 4.3.4")
        XCTAssertEqual(meta.storedAt, 500)
        XCTAssertEqual(meta.length, 1000)
    }

    func test_aChangedValidator_isANewVersion() {
        var v = ValidationStateMachine(kind: .range, asked: .span(first: 0, last: 99), stored: stored())
        let a = v.headArrived(status: 200, headers: headers([("ETag", "\"v2\"")]), contentLength: 2000, now: 9)
        guard case let .newVersion(meta, body) = a else { return XCTFail("\(a)") }
        XCTAssertEqual(meta.etag, "\"v2\"")
        XCTAssertEqual(body.isFull, true, "an If-Range miss answers the whole new body")
    }

    func test_aRevalidationOfTheSameRepresentation_refreshesItsAge() {
        var v = ValidationStateMachine(kind: .revalidation, asked: .span(first: 0, last: 99), stored: stored())
        let a = v.headArrived(status: 206, headers: headers([("Content-Range", "bytes 0-99/1000"), ("ETag", "\"v1\"")]),
                              contentLength: 100, now: 900)
        guard case let .sameVersion(refreshed, body) = a else { return XCTFail("\(a)") }
        XCTAssertEqual(refreshed?.storedAt, 900)
        XCTAssertEqual(body, .init(start: 0, length: 1000, isFull: false, openEnded: false, end: 100))
        var range = ValidationStateMachine(kind: .range, asked: .span(first: 0, last: 99), stored: stored())
        guard case .sameVersion(nil, _) = range.headArrived(status: 206, headers: headers([("Content-Range", "bytes 0-99/1000"), ("ETag", "\"v1\"")]),
                                                            contentLength: 100, now: 900) else { return XCTFail() }
    }

    func test_aGoneResource_isANewVersionWithItsStatus_noStoreDrops_andAServerErrorOnlyFails() {
        var gone = ValidationStateMachine(kind: .revalidation, asked: nil, stored: stored())
        let g = gone.headArrived(status: 410, headers: HTTPHeaders(), contentLength: 0, now: 1)
        guard case let .newVersion(meta, _) = g else { return XCTFail("\(g)") }
        XCTAssertEqual(meta.status, 410)
        var goneNoStore = ValidationStateMachine(kind: .revalidation, asked: nil, stored: stored())
        XCTAssertEqual(goneNoStore.headArrived(status: 404, headers: headers([("Cache-Control", "no-store")]), contentLength: 0, now: 1),
                       .drop(reason: "origin answered 404 (no-store)"))
        var noStore = ValidationStateMachine(kind: .range, asked: .span(first: 0, last: 9), stored: stored())
        XCTAssertEqual(noStore.headArrived(status: 200, headers: headers([("Cache-Control", "no-store")]), contentLength: 1000, now: 1),
                       .drop(reason: "origin answered 200 (no-store)"))
        var broken = ValidationStateMachine(kind: .revalidation, asked: nil, stored: stored())
        XCTAssertEqual(broken.headArrived(status: 503, headers: HTTPHeaders(), contentLength: 0, now: 1),
                       .fail(reason: "origin answered 503 (status 503)"))
    }

    func test_aDownloadsCopy_outlivesGoneAndErrorAnswers_butNotANewRepresentation() {
        func pinned() -> ValidationStateMachine {
            var m = ValidationStateMachine(kind: .revalidation, asked: nil, stored: stored())
            m.resourceAtHead(stored(), pinned: true)
            return m
        }
        var gone = pinned()
        XCTAssertEqual(gone.headArrived(status: 410, headers: HTTPHeaders(), contentLength: 0, now: 1),
                       .fail(reason: "origin answered 410"), "a cacheable 410 does not replace it")
        var goneNoStore = pinned()
        XCTAssertEqual(goneNoStore.headArrived(status: 404, headers: headers([("Cache-Control", "no-store")]), contentLength: 0, now: 1),
                       .fail(reason: "origin answered 404 (no-store)"), "nor is it dropped")
        var noStore = pinned()
        XCTAssertEqual(noStore.headArrived(status: 200, headers: headers([("Cache-Control", "no-store")]), contentLength: 1000, now: 1),
                       .fail(reason: "origin answered 200 (no-store)"))
        var changed = pinned()
        let c = changed.headArrived(status: 200, headers: headers([("ETag", "\"v2\""), ("Cache-Control", "max-age=60")]), contentLength: 1000, now: 1)
        guard case .newVersion = c else { return XCTFail("a new representation still replaces it: \(c)") }
    }

    /// Captive portals (issue 28): HTML where media was stored, or a redirect to another host,
    /// never replaces a download's copy and says the origin is not reachable; the same answers
    /// to a resource that is not a download's, or a redirect on the same host, are not flagged.
    func test_aCaptivePortalsAnswer_isTheWrongKindForADownloadsCopy() {
        func revalidation(pinned: Bool) -> ValidationStateMachine {
            var m = ValidationStateMachine(kind: .revalidation, asked: nil, stored: stored(), host: "cdn.example")
            m.resourceAtHead(stored(), pinned: pinned)
            return m
        }
        var html = revalidation(pinned: true)
        guard case .fail = html.headArrived(status: 200, headers: headers([("Content-Type", "text/html; charset=utf-8"), ("ETag", "\"p\"")]),
                                            contentLength: 80, now: 1) else { return XCTFail("replaced by a portal's page") }
        XCTAssertNotNil(html.wrongKind)
        var away = revalidation(pinned: true)
        guard case .fail = away.headArrived(status: 302, headers: headers([("Location", "http://login.portal.example/")]),
                                            contentLength: 0, now: 1) else { return XCTFail() }
        XCTAssertEqual(away.wrongKind, "origin redirected to another host (login.portal.example): a captive portal?")
        var sameHost = revalidation(pinned: true)
        _ = sameHost.headArrived(status: 302, headers: headers([("Location", "/elsewhere.m4s")]), contentLength: 0, now: 1)
        XCTAssertNil(sameHost.wrongKind, "a relative redirect stays on the host")
        var notDownloaded = revalidation(pinned: false)
        _ = notDownloaded.headArrived(status: 200, headers: headers([("Content-Type", "text/html")]), contentLength: 80, now: 1)
        XCTAssertNil(notDownloaded.wrongKind, "an ordinary resource may become HTML")
        var stillMedia = revalidation(pinned: true)
        _ = stillMedia.headArrived(status: 304, headers: HTTPHeaders(), contentLength: nil, now: 1)
        XCTAssertNil(stillMedia.wrongKind)
    }
}
