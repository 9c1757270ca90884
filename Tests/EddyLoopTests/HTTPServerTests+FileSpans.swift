import EddyCore
import EddyLoop
import Glibc
import XCTest

/// Complete responses whose body is a span of a file (`ServerRequest.sendFile`): copied when
/// small, otherwise sent straight from the page cache, and never a promise the file can not keep.
extension HTTPServerTests {
    func testASmallFileSpanGoesOutAsOneResponse() throws {
        let got = try exchange(["GET /small-file HTTP/1.1\r\nHost: x\r\n\r\nGET /next HTTP/1.1\r\nHost: x\r\n\r\n"], responses: 2)
        XCTAssertEqual(got.responses.first.map { Array($0.body.utf8) }, Array(HTTPServerTests.fileBytes[1000..<17384]))
        XCTAssertEqual(got.responses.last?.body, "answer to /next")
    }

    func testASpanUnderTheSendfileSize_isCopied_andOneAfterASendfileFollowsIt() throws {
        let got = try exchange(["GET /small-copy HTTP/1.1\r\nHost: x\r\n\r\nGET /small-file HTTP/1.1\r\nHost: x\r\n\r\n"
                                + "GET /small-copy HTTP/1.1\r\nHost: x\r\n\r\n"], responses: 3)
        XCTAssertEqual(got.responses.map { Array($0.body.utf8) }, [Array(HTTPServerTests.fileBytes[5..<4005]),
                                                                    Array(HTTPServerTests.fileBytes[1000..<17384]),
                                                                    Array(HTTPServerTests.fileBytes[5..<4005])])
        XCTAssertFalse(got.closed)
    }

    func testASpanTheSocketDoesNotTakeAtOnce_arrivesWhole_toASlowReader() throws {
        // A receive window of a few KiB, and no reading for a moment: sendfile stops part way,
        // and the rest goes from the queue as the reader makes room.
        XCTAssertTrue(FileManagerless.write(HTTPServerTests.largeBytes, to: HTTPServerTests.largePath))
        defer { unlink(HTTPServerTests.largePath) }
        let fd = connected(receiveBuffer: 4096)
        defer { close(fd) }
        let text = "GET /large-span HTTP/1.1\r\nHost: x\r\n\r\nGET /next HTTP/1.1\r\nHost: x\r\n\r\n"
        _ = text.utf8CString.withUnsafeBufferPointer { send(fd, $0.baseAddress, $0.count - 1, 0) }
        usleep(200_000)
        var data: [UInt8] = [], buf = [UInt8](repeating: 0, count: 65536)
        let want = Array("answer to /next".utf8)
        while !data.suffix(want.count).elementsEqual(want) {
            let n = recv(fd, &buf, buf.count, 0)
            guard n > 0 else { break }
            data += buf[0..<n]
        }
        XCTAssertTrue(data.starts(with: Array("HTTP/1.1 200 ".utf8)))
        let bodyStart = try XCTUnwrap(data.firstRange(of: Array("\r\n\r\n".utf8))).upperBound
        XCTAssertEqual(Array(data[bodyStart..<min(data.count, bodyStart + HTTPServerTests.largeBytes.count)]), HTTPServerTests.largeBytes)
        XCTAssertEqual(Array(data.suffix(want.count)), want)
    }

    func testASpanPastTheFilesEnd_sendsNothing_andTheHandlerAnswersOtherwise() throws {
        let got = try exchange(["GET /past-the-end HTTP/1.1\r\nHost: x\r\n\r\n"], responses: 1)
        XCTAssertEqual(got.responses.first?.status, 502)
        XCTAssertEqual(got.responses.first?.body, "short")
        XCTAssertFalse(got.closed)
    }
}
