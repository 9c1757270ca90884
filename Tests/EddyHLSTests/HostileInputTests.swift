import EddyCore
import EddyHLS
import EddyTestSupport
import XCTest

/// Random and hostile input: the parsers must never trap, and the playlist model must always give
/// back exactly the bytes it was given.
final class HostileInputTests: XCTestCase {
    /// Text drawn from characters that matter to the parsers, plus random bytes.
    func randomText(_ rng: inout SplitMix, length: Int) -> String {
        let alphabet = Array("#EXT-X-KEY:URI=\"abc\",\r\n\t -=*/bytes0123456789W/?&_HLS_msn%\u{FEFF}é")
        var s = ""
        for _ in 0..<length {
            if Int.random(in: 0..<10, using: &rng) == 0 {
                s.unicodeScalars.append(Unicode.Scalar(UInt8.random(in: 0...127, using: &rng)))
            } else {
                s.append(alphabet[Int.random(in: 0..<alphabet.count, using: &rng)])
            }
        }
        return s
    }

    func test_playlist_randomText_roundTripsAndRewritesWithoutTrapping() {
        var rng = SplitMix(state: 42)
        for _ in 0..<3000 {
            let text = randomText(&rng, length: Int.random(in: 0..<200, using: &rng))
            var p = HLSPlaylist(text)
            XCTAssertEqual(p.text, text)
            p.rewriteURIs { "<" + $0 + ">" }
            let restored = p.text.replacingOccurrences(of: "<", with: "").replacingOccurrences(of: ">", with: "")
            XCTAssertEqual(restored, text.replacingOccurrences(of: "<", with: "").replacingOccurrences(of: ">", with: ""))
            _ = p.kind
            _ = p.segmentURIs
            _ = p.keyURIs
        }
    }

    func test_headerParsers_randomText_neverTrap() {
        var rng = SplitMix(state: 7)
        for _ in 0..<5000 {
            let text = randomText(&rng, length: Int.random(in: 0..<60, using: &rng))
            let header = RangeHeader.parse(text)
            for len in [0, 1, 100, Int.max / 2] { _ = RangePlan.make(header, length: len) }
            _ = ContentRange.parse(text)
            _ = EntityTag.parseList(text)
            _ = HTTPDate.parse(text)
            _ = CacheControl.parse(text)
            _ = HostPattern(text)
            _ = ByteSize.parse(text)
            _ = UpstreamURL.parse(Substring(text))
            if let base = UpstreamURL.parse("https://example.com/a/b.m3u8") { _ = URIReference.resolve(text, against: base) }
        }
    }
}
