import XCTest
@testable import EddyCore

final class ChunkedBodyDecoderTests: XCTestCase {
    /// What a connection would see: the body, how it ended, and the bytes after it.
    private struct Decoded: Equatable {
        var body: [UInt8] = []
        var ending: ChunkedBodyDecoder.Event = .needMore
        var rest: [UInt8] = []
    }

    /// Decodes `text` arriving `step` bytes at a time (0: all at once).
    private func decode(_ text: String, step: Int = 0, limits: ChunkedBodyDecoder.Limits = .init()) -> Decoded {
        let bytes = Array(text.utf8)
        var d = ChunkedBodyDecoder(limits: limits)
        var out = Decoded()
        var pending: [UInt8] = [], fed = 0
        while true {
            if fed < bytes.count {
                let n = step == 0 ? bytes.count : min(step, bytes.count - fed)
                pending += bytes[fed..<fed + n]
                fed += n
            }
            while !pending.isEmpty || fed == bytes.count {
                let (event, consumed) = pending.withUnsafeBytes { d.next($0) }
                if case let .data(r) = event { out.body += pending[r] }
                pending.removeFirst(consumed)
                switch event {
                case .data: continue
                case .needMore: break
                case .end, .invalid:
                    out.ending = event
                    out.rest = pending + bytes[fed...]
                    return out
                }
                break
            }
            if fed == bytes.count { return out }
        }
    }

    func test_next_decodesChunks_andLeavesWhatFollows() {
        let got = decode("5\r\nhello\r\n7;name=value\r\n, world\r\n0\r\n\r\nGET /next")
        XCTAssertEqual(got, Decoded(body: Array("hello, world".utf8), ending: .end, rest: Array("GET /next".utf8)))
    }

    func test_next_givesTheSameBody_howeverTheBytesArrive() {
        let text = "A\r\n0123456789\r\n1; a=\"q\"\r\nx\r\n0\r\nTrailer: t\r\n\r\nnext"
        let whole = decode(text)
        XCTAssertEqual(whole.body, Array("0123456789x".utf8))
        for step in 1...9 { XCTAssertEqual(decode(text, step: step), whole, "by \(step)") }
    }

    func test_next_trailers_areReadAndDropped() {
        XCTAssertEqual(decode("0\r\nA: b\r\nC: d\r\n\r\n").ending, .end)
        XCTAssertEqual(decode("0\r\nA: b\r\n c\r\n\r\n").ending, .invalid(reason: "obsolete line folding in the trailer", tooLarge: false))
    }

    func test_next_incompleteBodies_askForMore() {
        for text in ["", "5", "5\r\n", "5\r\nhel", "5\r\nhello\r\n", "0\r\n", "0\r\nA: b\r\n"] {
            XCTAssertEqual(decode(text).ending, .needMore, text.debugDescription)
        }
    }

    func test_next_refusesLooseFraming() {
        let bad = ["5\nhello\r\n0\r\n\r\n": "bare LF after the size",
                   "5\r\nhello\n0\r\n\r\n": "bare LF after the data",
                   "5\r\nhelloX\r\n0\r\n\r\n": "data longer than its size",
                   "\r\n": "no size", "x\r\n": "not hex", "-5\r\n": "signed", "0x5\r\n": "prefixed",
                   "5;a\nb\r\n": "LF inside an extension",
                   "0\r\n\r\r\n": "bare CR at the end",
                   "0\r\nA: b\n\r\n": "bare LF in the trailer",
                   "0000000000000001\r\n": "16 hex digits, however small"]
        for (text, why) in bad {
            guard case .invalid(_, false) = decode(text).ending else { return XCTFail("\(why): \(decode(text).ending)") }
        }
    }

    func test_next_limits() {
        var limits = ChunkedBodyDecoder.Limits()
        limits.maxBodyBytes = 10
        XCTAssertEqual(decode("5\r\nhello\r\n5\r\nhello\r\n0\r\n\r\n", limits: limits).ending, .end)
        XCTAssertEqual(decode("5\r\nhello\r\n6\r\n", limits: limits).ending, .invalid(reason: "request body too large", tooLarge: true))
        XCTAssertEqual(decode("FFFFFFFFFFFFFFF\r\n").ending, .invalid(reason: "request body too large", tooLarge: true))
        limits = ChunkedBodyDecoder.Limits()
        limits.maxLineBytes = 16
        XCTAssertEqual(decode("1;" + String(repeating: "e", count: 20) + "\r\n", limits: limits).ending,
                       .invalid(reason: "chunk extension too long", tooLarge: false))
        limits.maxTrailerBytes = 8
        XCTAssertEqual(decode("0\r\nLong-Trailer: x\r\n\r\n", limits: limits).ending,
                       .invalid(reason: "trailer section too large", tooLarge: false))
    }

    func test_decoded_countsBodyBytes() {
        var d = ChunkedBodyDecoder()
        let bytes = Array("3\r\nabc\r\n".utf8)
        let (event, consumed) = bytes.withUnsafeBytes { d.next($0) }
        XCTAssertEqual(event, .data(3..<6))
        XCTAssertEqual(consumed, 6)
        XCTAssertEqual(d.decoded, 3)
    }
}
