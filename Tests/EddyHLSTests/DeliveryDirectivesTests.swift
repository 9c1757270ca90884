import EddyHLS
import XCTest

/// One spelling per playlist and directives, whatever order the viewer wrote them in.
final class DeliveryDirectivesTests: XCTestCase {
    func test_directivesGoLastInSpecOrder_othersKeepTheirOrderAndBytes() {
        XCTAssertEqual(DeliveryDirectives.canonical("/live/v.m3u8?_HLS_part=2&_HLS_msn=41"), "/live/v.m3u8?_HLS_msn=41&_HLS_part=2")
        XCTAssertEqual(DeliveryDirectives.canonical("/live/v.m3u8?_HLS_skip=YES&token=a%2Fb&_HLS_msn=41&x=1"),
                       "/live/v.m3u8?token=a%2Fb&x=1&_HLS_msn=41&_HLS_skip=YES")
        XCTAssertEqual(DeliveryDirectives.canonical("/v.m3u8?_HLS_msn=41&_HLS_part=2"), "/v.m3u8?_HLS_msn=41&_HLS_part=2")
    }

    func test_withoutDirectives_isUnchanged() {
        for s in ["/v.m3u8", "/v.m3u8?", "/v.m3u8?a=1&b=2", "/v.m3u8?_HLS_msnx=1", "/v.m3u8?a&&b", "/x?_hls_msn=1"] {
            XCTAssertEqual(DeliveryDirectives.canonical(s), s)
        }
    }

    func test_anyOrderGivesOneKey() {
        let spellings = ["/v.m3u8?_HLS_msn=7&_HLS_part=1&_HLS_skip=v2", "/v.m3u8?_HLS_skip=v2&_HLS_part=1&_HLS_msn=7",
                         "/v.m3u8?_HLS_part=1&_HLS_skip=v2&_HLS_msn=7", "/v.m3u8?_HLS_part=1&_HLS_msn=7&_HLS_skip=v2"]
        XCTAssertEqual(Set(spellings.map(DeliveryDirectives.canonical)).count, 1)
    }

    func test_aRepeatedDirectiveKeepsBoth_firstFirst() {
        XCTAssertEqual(DeliveryDirectives.canonical("/v.m3u8?_HLS_msn=2&a=1&_HLS_msn=3"), "/v.m3u8?a=1&_HLS_msn=2&_HLS_msn=3")
    }
}
