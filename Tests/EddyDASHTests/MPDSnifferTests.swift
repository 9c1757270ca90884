import EddyDASH
import XCTest

final class MPDSnifferTests: XCTestCase {
    func test_type_caseAndParameters() {
        XCTAssertTrue(MPDSniffer.isMPDType("application/dash+xml"))
        XCTAssertTrue(MPDSniffer.isMPDType("Application/DASH+XML; charset=utf-8"))
        XCTAssertFalse(MPDSniffer.isMPDType("application/xml"))
        XCTAssertFalse(MPDSniffer.isMPDType(nil))
    }

    func test_path_queryAside() {
        XCTAssertTrue(MPDSniffer.isMPDPath("/a/manifest.MPD?token=1"))
        XCTAssertFalse(MPDSniffer.isMPDPath("/a/manifest.m3u8?x=.mpd"))
    }

    func test_head_declarationCommentsAndPrefix() {
        XCTAssertTrue(MPDSniffer.looksLikeMPD(Array("\u{FEFF}<?xml version=\"1.0\"?>\n<!-- made by x --><MPD xmlns=\"urn\">".utf8)))
        XCTAssertTrue(MPDSniffer.looksLikeMPD(Array("<dash:MPD>".utf8)))
        XCTAssertFalse(MPDSniffer.looksLikeMPD(Array("<MPDX>".utf8)))
        XCTAssertFalse(MPDSniffer.looksLikeMPD(Array("#EXTM3U".utf8)))
        XCTAssertFalse(MPDSniffer.looksLikeMPD(Array("<?xml version".utf8)))
    }
}

final class ISODurationTests: XCTestCase {
    func test_seconds_dayTimeForms() {
        XCTAssertEqual(ISODuration.seconds("PT2S"), 2)
        XCTAssertEqual(ISODuration.seconds("PT0.5S"), 0.5)
        XCTAssertEqual(ISODuration.seconds("P1DT2H30M"), 86400 + 2 * 3600 + 30 * 60)
        XCTAssertEqual(ISODuration.seconds("PT1M1.25S"), 61.25)
    }

    func test_seconds_refusesYearsMonthsAndJunk() {
        XCTAssertNil(ISODuration.seconds("P1Y"))
        XCTAssertNil(ISODuration.seconds("P1M"))
        XCTAssertNil(ISODuration.seconds("PT"))
        XCTAssertNil(ISODuration.seconds("T2S"))
        XCTAssertNil(ISODuration.seconds("PT2"))
        XCTAssertNil(ISODuration.seconds("-PT2S"))
    }
}
