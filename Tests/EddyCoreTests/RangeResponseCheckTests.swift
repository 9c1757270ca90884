import EddyCore
import XCTest

/// RFC 9110 section 14.4: a 206 is only combined with stored bytes when it is what was asked.
final class RangeResponseCheckTests: XCTestCase {
    private func verify(_ asked: RangeResponseCheck.Asked, _ cr: String?, length: Int? = nil, known: Int? = nil) -> Result<RangeResponseCheck.Verified, RangeResponseCheck.RejectReason> {
        RangeResponseCheck.verify(asked: asked, contentRange: cr, contentLength: length, knownLength: known)
    }

    private func assertVerified(_ r: Result<RangeResponseCheck.Verified, RangeResponseCheck.RejectReason>, first: Int, last: Int, complete: Int,
                                file: StaticString = #filePath, line: UInt = #line) {
        switch r {
        case let .success(v):
            XCTAssertEqual(v.span, ByteSpan(first: first, last: last), file: file, line: line)
            XCTAssertEqual(v.completeLength, complete, file: file, line: line)
        case let .failure(e):
            XCTFail("rejected: \(e)", file: file, line: line)
        }
    }

    private func assertRejected(_ r: Result<RangeResponseCheck.Verified, RangeResponseCheck.RejectReason>, file: StaticString = #filePath, line: UInt = #line) {
        if case let .failure(e) = r {
            XCTAssertFalse(e.description.isEmpty, file: file, line: line)
        } else {
            XCTFail("expected rejection, got \(r)", file: file, line: line)
        }
    }

    func test_verify_matchingClosedSpan_isVerified() {
        assertVerified(verify(.span(first: 0, last: 499), "bytes 0-499/1000", length: 500, known: 1000), first: 0, last: 499, complete: 1000)
    }

    func test_verify_matchingOpenSpan_isVerified() {
        assertVerified(verify(.span(first: 500, last: nil), "bytes 500-999/1000"), first: 500, last: 999, complete: 1000)
    }

    func test_verify_lastBeyondLength_acceptsClampedSpan() {
        assertVerified(verify(.span(first: 0, last: 5000), "bytes 0-999/1000"), first: 0, last: 999, complete: 1000)
    }

    func test_verify_wrongStart_isRejected() {
        assertRejected(verify(.span(first: 0, last: 499), "bytes 1-499/1000"))
        assertRejected(verify(.span(first: 100, last: nil), "bytes 0-99/1000"))
        assertRejected(verify(.span(first: 0, last: 262_143), "bytes 262144-524287/1000000")) // one block off
    }

    /// Another extent that holds the first byte asked for is stored as it came (RFC 9110 section
    /// 15.3.7; the conformance suite's partial-store-partial-*): shorter, longer, or reaching back.
    func test_verify_otherExtentHoldingTheFirstByte_isVerified() {
        assertVerified(verify(.span(first: 0, last: 499), "bytes 0-498/1000"), first: 0, last: 498, complete: 1000)
        assertVerified(verify(.span(first: 0, last: 499), "bytes 0-999/1000"), first: 0, last: 999, complete: 1000)
        assertVerified(verify(.span(first: 0, last: nil), "bytes 0-499/1000"), first: 0, last: 499, complete: 1000)
        assertVerified(verify(.span(first: 100, last: nil), "bytes 0-999/1000"), first: 0, last: 999, complete: 1000)
    }

    func test_verify_completeLengthDiffersFromStored_isRejected() {
        assertRejected(verify(.span(first: 0, last: 499), "bytes 0-499/2000", known: 1000))
    }

    func test_verify_missingContentRange_isRejected() {
        assertRejected(verify(.span(first: 0, last: 499), nil))
    }

    func test_verify_invalidOrUnsatisfiedContentRange_isRejected() {
        assertRejected(verify(.span(first: 0, last: 499), "bytes */1000"))
        assertRejected(verify(.span(first: 0, last: 499), "bytes 0-499/400"))
        assertRejected(verify(.span(first: 0, last: 499), "garbage"))
    }

    func test_verify_unknownCompleteLength_isRejected() {
        assertRejected(verify(.span(first: 0, last: 499), "bytes 0-499/*"))
    }

    func test_verify_contentLengthMismatch_isRejected() {
        assertRejected(verify(.span(first: 0, last: 499), "bytes 0-499/1000", length: 499))
        assertRejected(verify(.span(first: 0, last: 499), "bytes 0-499/1000", length: 1000))
    }

    func test_verify_noContentLength_isVerified() {
        assertVerified(verify(.span(first: 10, last: 19), "bytes 10-19/20"), first: 10, last: 19, complete: 20)
    }

    func test_verify_matchingSuffix_isVerified() {
        assertVerified(verify(.suffix(500), "bytes 500-999/1000", length: 500), first: 500, last: 999, complete: 1000)
    }

    func test_verify_suffixLongerThanRepresentation_isWhole() {
        assertVerified(verify(.suffix(5000), "bytes 0-999/1000"), first: 0, last: 999, complete: 1000)
    }

    func test_verify_suffixAnswers() {
        assertVerified(verify(.suffix(5), "bytes 4-9/10"), first: 4, last: 9, complete: 10)
        assertVerified(verify(.suffix(500), "bytes 400-899/1000"), first: 400, last: 899, complete: 1000)
        assertRejected(verify(.suffix(500), "bytes 501-999/1000"))
        assertRejected(verify(.suffix(500), "bytes 0-499/1000"))
        assertRejected(verify(.suffix(5), "bytes 4-9/10", length: 5)) // the body is not the extent it names
    }
}
