import EddyDASH
import XCTest

/// ISO/IEC 23009-1 section 5.6 (base URLs), and hostile XML.
final class MPDDocumentTests: XCTestCase {
    private func resolve(_ ref: String, _ base: String) -> String? { TestResolution.resolve(ref, base) }

    /// eddy's prefix form: `/` and the URL; nil for a host it may not fetch.
    private func target(_ url: String) -> String? { url.contains("evil.example") ? nil : "/" + url }

    private func rewritten(_ xml: String, url: String = "http://cdn.example/show/manifest.mpd") throws -> String {
        let d = try MPDDocument(Array(xml.utf8))
        d.rewriteURLs(documentURL: url, resolve: resolve, target: target)
        return String(decoding: d.serialized(), as: UTF8.self)
    }

    func test_rewrite_absoluteBaseURLsAtEveryLevel_nameEddy() throws {
        let out = try rewritten("""
        <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static"><BaseURL>http://media.example/a/</BaseURL>
        <Period><BaseURL>p1/</BaseURL><AdaptationSet><BaseURL>/root/</BaseURL>
        <Representation id="v"><BaseURL>https://other.example/r/</BaseURL></Representation></AdaptationSet></Period></MPD>
        """)
        XCTAssertTrue(out.contains("<BaseURL>/http://media.example/a/</BaseURL>"), out)
        XCTAssertTrue(out.contains("<BaseURL>/http://media.example/a/p1/</BaseURL>"), out)
        XCTAssertTrue(out.contains("<BaseURL>/http://media.example/root/</BaseURL>"), out)
        XCTAssertTrue(out.contains("<BaseURL>/https://other.example/r/</BaseURL>"), out)
    }

    func test_rewrite_locationRewritten_patchLocationRemoved_utcTimingKept() throws {
        let out = try rewritten("""
        <MPD type="dynamic" minimumUpdatePeriod="PT2S"><Location>http://cdn.example/live.mpd?a=1&amp;b=2</Location>
        <PatchLocation ttl="60">patch.mpp</PatchLocation>
        <UTCTiming schemeIdUri="urn:mpeg:dash:utc:http-iso:2014" value="http://time.example/now"/><Period/></MPD>
        """)
        XCTAssertTrue(out.contains("<Location>/http://cdn.example/live.mpd?a=1&amp;b=2</Location>"), out)
        XCTAssertFalse(out.contains("PatchLocation"), out)
        XCTAssertTrue(out.contains("value=\"http://time.example/now\""), out)
    }

    func test_rewrite_absoluteTemplate_keepsItsIdentifiers_relativeKeptAsWritten() throws {
        let out = try rewritten("""
        <MPD><Period><AdaptationSet><SegmentTemplate media="http://cdn.example/v/$RepresentationID$/$Number$.m4s"
        initialization="init-$RepresentationID$.mp4"/><Representation id="a"/></AdaptationSet></Period></MPD>
        """)
        XCTAssertTrue(out.contains("media=\"/http://cdn.example/v/$RepresentationID$/$Number$.m4s\""), out)
        XCTAssertTrue(out.contains("initialization=\"init-$RepresentationID$.mp4\""), out)
    }

    func test_rewrite_urlEddyMayNotFetch_isKeptAsWritten() throws {
        let out = try rewritten("<MPD><BaseURL>http://evil.example/x/</BaseURL></MPD>")
        XCTAssertTrue(out.contains("<BaseURL>http://evil.example/x/</BaseURL>"), out)
    }

    func test_attributes_dynamicAndUpdatePeriod() throws {
        let d = try MPDDocument(Array("<MPD type=\"dynamic\" minimumUpdatePeriod=\"PT0.5S\"/>".utf8))
        XCTAssertTrue(d.isDynamic)
        XCTAssertEqual(d.minimumUpdatePeriod, 0.5)
        XCTAssertFalse(try MPDDocument(Array("<MPD/>".utf8)).isDynamic)
    }

    func test_parse_externalEntity_isRefused() {
        let xxe = """
        <?xml version="1.0"?><!DOCTYPE MPD [<!ENTITY x SYSTEM "file:///etc/passwd">]><MPD><BaseURL>&x;</BaseURL></MPD>
        """
        XCTAssertThrowsError(try MPDDocument(Array(xxe.utf8))) { XCTAssertTrue("\($0)".contains("document type")) }
    }

    func test_parse_billionLaughs_isRefused() {
        var dtd = "<!ENTITY l0 \"ha\">"
        for i in 1...9 { dtd += "<!ENTITY l\(i) \"" + String(repeating: "&l\(i - 1);", count: 10) + "\">" }
        let bomb = "<!DOCTYPE MPD [\(dtd)]><MPD><BaseURL>&l9;</BaseURL></MPD>"
        XCTAssertThrowsError(try MPDDocument(Array(bomb.utf8)))
    }

    func test_parse_lowercaseDoctype_isRefused() {
        XCTAssertThrowsError(try MPDDocument(Array("<!doctype MPD><MPD/>".utf8)))
    }

    func test_parse_malformed_notMPD_tooLarge_areRefused() {
        XCTAssertThrowsError(try MPDDocument(Array("<MPD><Period></MPD>".utf8)))
        XCTAssertThrowsError(try MPDDocument(Array("<html><body/></html>".utf8))) { XCTAssertTrue("\($0)".contains("root")) }
        XCTAssertThrowsError(try MPDDocument(Array("".utf8)))
        let big = "<MPD>" + String(repeating: " ", count: MPDDocument.maxBytes) + "</MPD>"
        XCTAssertThrowsError(try MPDDocument(Array(big.utf8))) { XCTAssertTrue("\($0)".contains("larger")) }
    }

    func test_parse_randomBytes_neverCrash() {
        var g = SystemRandomNumberGenerator()
        let seed = Array("<MPD a=\"1\"><Period><BaseURL>x</BaseURL></Period></MPD>".utf8)
        for _ in 0..<500 {
            var b = seed
            for _ in 0..<Int.random(in: 1...6, using: &g) { b[Int.random(in: 0..<b.count, using: &g)] = UInt8.random(in: 0...255, using: &g) }
            if let d = try? MPDDocument(b) {
                d.rewriteURLs(documentURL: "http://cdn.example/m.mpd", resolve: resolve, target: target)
                _ = d.serialized()
            }
        }
    }
}
