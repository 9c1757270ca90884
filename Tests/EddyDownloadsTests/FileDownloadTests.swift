import EddyCore
@testable import EddyDownloads
import XCTest

/// File downloads as values: what is sniffed as HLS, the plan's block-aligned ranges, the range
/// map, and the list file's lines.
final class FileDownloadTests: XCTestCase {
    let url = UpstreamURL.parse("http://o.example/films/movie.mp4")!
    let block = 256 << 10

    func test_sniffTakesAPlaylistByItsFirstLineOrItsType() {
        XCTAssertEqual(DownloadKind.sniff(prefix: Array("#EXTM3U\n#EXT-X-VERSION:3".utf8), contentType: "text/plain"), .hls)
        XCTAssertEqual(DownloadKind.sniff(prefix: [0xEF, 0xBB, 0xBF] + Array(" \r\n#EXTM3U".utf8), contentType: nil), .hls)
        XCTAssertEqual(DownloadKind.sniff(prefix: [], contentType: "application/vnd.apple.mpegURL; charset=utf-8"), .hls)
        XCTAssertEqual(DownloadKind.sniff(prefix: Array("\0\0\0\u{1c}ftypisom".utf8), contentType: "video/mp4"), .file)
        XCTAssertEqual(DownloadKind.sniff(prefix: Array("<html>#EXTM3U".utf8), contentType: "text/html"), .file)
        XCTAssertEqual(DownloadKind.sniff(prefix: Array("#EXTM3".utf8), contentType: nil), .file)
        XCTAssertTrue(DownloadKind.namesPlaylist("/a/master.M3U8?token=1"))
        XCTAssertTrue(DownloadKind.namesPlaylist("/radio.m3u"))
        XCTAssertFalse(DownloadKind.namesPlaylist("/a/movie.mp4?x=.m3u8"))
    }

    func test_aLargeFileIsSplitIntoBlockAlignedRangesCoveringItOnce() {
        let length = 64 << 20 | 12345
        let plan = DownloadPlan.file(url: url, length: length, acceptsRanges: true, concurrency: 8)
        XCTAssertTrue(plan.isFile)
        XCTAssertEqual(plan.fileLength, length)
        XCTAssertEqual(plan.units.first?.range?.lowerBound, 0)
        XCTAssertEqual(plan.units.last?.range?.upperBound, length)
        for (a, b) in zip(plan.units, plan.units.dropFirst()) { XCTAssertEqual(a.range!.upperBound, b.range!.lowerBound) }
        for u in plan.units.dropLast() {
            XCTAssertEqual(u.range!.count % block, 0, "units end on block boundaries")
            XCTAssertLessThanOrEqual(u.range!.count, DownloadPlan.maxFileUnit)
        }
        XCTAssertGreaterThanOrEqual(plan.units.count, 8, "at least one range per connection")
        XCTAssertEqual(Set(plan.units.map(\.id)).count, plan.units.count)
        XCTAssertTrue(plan.units.allSatisfy { $0.kind == .file && $0.rendition == nil })
    }

    func test_aSmallFileIsOneBlockSizedUnitAndUnknownLengthOrNoRangesIsOneWholeUnit() {
        let small = DownloadPlan.file(url: url, length: 1000, acceptsRanges: true, concurrency: 8)
        XCTAssertEqual(small.units.map(\.range), [0..<1000])
        let mid = DownloadPlan.file(url: url, length: 3 * block + 1, acceptsRanges: true, concurrency: 8)
        XCTAssertEqual(mid.units.map(\.range), [0..<block, block..<2 * block, 2 * block..<3 * block, 3 * block..<3 * block + 1])
        XCTAssertEqual(DownloadPlan.file(url: url, length: nil, acceptsRanges: true, concurrency: 8).units.map(\.range), [nil])
        XCTAssertEqual(DownloadPlan.file(url: url, length: 10 << 20, acceptsRanges: false, concurrency: 8).units.map(\.range), [nil])
        XCTAssertEqual(DownloadPlan.file(url: url, length: 0, acceptsRanges: true, concurrency: 8).units.map(\.range), [0..<0])
    }

    func test_theRangeMapMergesNeighbouringUnitsHeld() {
        let plan = DownloadPlan.file(url: url, length: 4 * block, acceptsRanges: true, concurrency: 4)
        XCTAssertEqual(plan.heldRanges(done: [true, true, false, true]), [0..<2 * block, 3 * block..<4 * block])
        XCTAssertEqual(plan.heldRanges(done: [false, false, false, false]), [])
        let whole = DownloadPlan.file(url: url, length: 5000, acceptsRanges: false, concurrency: 4)
        XCTAssertEqual(whole.heldRanges(done: [true]), [0..<5000])
    }

    func test_aListFileSplitsWordsLikeAShellWithoutExpansion() {
        let text = """
        # films for tonight
        http://o/a.mp4 --title "A \\"quoted\\" film" --rate 2M

        http://o/b.m3u8   --audio en,fr   # French too
        'http://o/c d.mkv' --title it\\'s\r
        http://o/e.mp4 --title "unclosed
        http://o/$HOME.mp4 --title "$HOME"
        """
        let list = DownloadListFile(text)
        XCTAssertEqual(list.lines, [
            .init(number: 2, words: ["http://o/a.mp4", "--title", "A \"quoted\" film", "--rate", "2M"]),
            .init(number: 4, words: ["http://o/b.m3u8", "--audio", "en,fr"]),
            .init(number: 5, words: ["http://o/c d.mkv", "--title", "it's"]),
            .init(number: 7, words: ["http://o/$HOME.mp4", "--title", "$HOME"]),
        ])
        XCTAssertEqual(list.bad, [.init(number: 6, reason: "a double quote is not closed")])
        XCTAssertEqual(DownloadListFile("a#b c\n").lines.first?.words, ["a#b", "c"])
    }
}
