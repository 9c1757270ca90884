import EddyHLS
import XCTest

final class AttributeListTests: XCTestCase {
    func test_quotedValuesKeepCommas_andTypedReaders() {
        let a = AttributeList(#"BANDWIDTH=2523597,CODECS="avc1.640020,mp4a.40.2",RESOLUTION=960x540,FRAME-RATE=59.940,CLOSED-CAPTIONS=NONE"#)
        XCTAssertEqual(a.integer("BANDWIDTH"), 2523597)
        XCTAssertEqual(a.list("CODECS"), ["avc1.640020", "mp4a.40.2"])
        XCTAssertEqual(a.resolution("RESOLUTION")?.width, 960)
        XCTAssertEqual(a.resolution("RESOLUTION")?.height, 540)
        XCTAssertEqual(a.decimal("FRAME-RATE"), 59.94)
        XCTAssertEqual(a["CLOSED-CAPTIONS"], "NONE")
        XCTAssertEqual(a.pairs.map(\.quoted), [false, true, false, false, false])
    }

    func test_malformedValues_readAsAbsent() {
        let a = AttributeList("BANDWIDTH=-5,RESOLUTION=12x,FRAME-RATE=inf,X=99999999999999999999,Y=1e3")
        XCTAssertNil(a.integer("BANDWIDTH"))
        XCTAssertNil(a.resolution("RESOLUTION"))
        XCTAssertNil(a.decimal("FRAME-RATE"))
        XCTAssertNil(a.integer("X"))
        XCTAssertNil(a.decimal("Y"))
    }

    func test_unterminatedQuoteOrMissingEquals_endsTheList_keepingWhatCameBefore() {
        XCTAssertEqual(AttributeList(#"A=1,B="open,C=2"#).pairs.map(\.name), ["A"])
        // "JUNK,C=2" reads as the name "JUNK,C"? No: a name runs to '=', so "JUNK,C" is one
        // (invalid) name with value 2; the valid A survives either way.
        XCTAssertEqual(AttributeList("A=1,JUNK,C=2")["A"], "1")
    }

    func test_repeatedName_keepsTheFirst_andFlags() {
        let a = AttributeList("DEFAULT=YES,DEFAULT=NO,AUTOSELECT=maybe")
        XCTAssertTrue(a.flag("DEFAULT"))
        XCTAssertFalse(a.flag("AUTOSELECT"))
        XCTAssertTrue(a.flag("FORCED", otherwise: true))
    }
}
