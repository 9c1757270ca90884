import XCTest
@testable import EddyCore

final class ResponsePlanTests: XCTestCase {
    private func text(_ p: ResponsePlan.Piece) -> String? {
        if case let .bytes(b) = p { return String(decoding: b, as: UTF8.self) }
        return nil
    }

    func test_make_full_isTheWholeRepresentationWithItsLength() {
        let p = ResponsePlan.make(.full, length: 1000, contentType: "video/mp4", boundary: "b")
        XCTAssertEqual(p.status, 200)
        XCTAssertEqual(p.bodyFields, HTTPHeaders([("Content-Length", "1000")]))
        XCTAssertEqual(p.pieces, [.resource(0..<1000)])
        XCTAssertFalse(p.isMultipart)
    }

    func test_make_single_is206WithContentRangeAndNeverMultipart() {
        let p = ResponsePlan.make(.single(ByteSpan(first: 100, last: 199)), length: 1000, contentType: nil, boundary: "b")
        XCTAssertEqual(p.status, 206)
        XCTAssertEqual(p.bodyFields, HTTPHeaders([("Content-Range", "bytes 100-199/1000"), ("Content-Length", "100")]))
        XCTAssertEqual(p.pieces, [.resource(100..<200)])
    }

    func test_make_multipart_framesEveryPartAndCountsEveryByte() {
        let spans = [ByteSpan(first: 0, last: 9), ByteSpan(first: 500, last: 504)]
        let p = ResponsePlan.make(.multipart(spans), length: 1000, contentType: "video/mp4", boundary: "B")
        XCTAssertEqual(p.status, 206)
        XCTAssertTrue(p.isMultipart)
        XCTAssertEqual(p.pieces.count, 5)
        XCTAssertEqual(text(p.pieces[0]), "--B\r\nContent-Type: video/mp4\r\nContent-Range: bytes 0-9/1000\r\n\r\n")
        XCTAssertEqual(p.pieces[1], .resource(0..<10))
        XCTAssertEqual(text(p.pieces[2]), "\r\n--B\r\nContent-Type: video/mp4\r\nContent-Range: bytes 500-504/1000\r\n\r\n")
        XCTAssertEqual(p.pieces[3], .resource(500..<505))
        XCTAssertEqual(text(p.pieces[4]), "\r\n--B--\r\n")
        let total = p.pieces.reduce(0) { sum, piece in
            switch piece {
            case let .bytes(b): return sum + b.count
            case let .resource(r): return sum + r.count
            }
        }
        XCTAssertEqual(p.bodyFields["Content-Length"], String(total))
        XCTAssertEqual(p.bodyFields["Content-Type"], "multipart/byteranges; boundary=B")
    }

    func test_make_multipart_withoutAType_saysOctetStream() {
        let p = ResponsePlan.make(.multipart([ByteSpan(first: 0, last: 0), ByteSpan(first: 5, last: 5)]), length: 10, contentType: nil, boundary: "x")
        XCTAssertTrue(text(p.pieces[0])!.contains("Content-Type: application/octet-stream\r\n"))
    }

    func test_make_unsatisfiable_is416WithTheCompleteLength() {
        let p = ResponsePlan.make(.unsatisfiable, length: 1000, contentType: nil, boundary: "b")
        XCTAssertEqual(p.status, 416)
        XCTAssertEqual(p.bodyFields, HTTPHeaders([("Content-Range", "bytes */1000")]))
        XCTAssertTrue(p.pieces.isEmpty)
    }
}
