import EddyCore
import Foundation
import XCTest

final class JSONTextTests: XCTestCase {
    func test_quotedStringsParseBackToThemselves() throws {
        for s in ["", "plain", "q\"b\\s", "line\nbreak\r\t", "\u{0}\u{1}\u{1F}\u{7F}", "é✓🎬", "\u{2028}x\u{2029}", "/a?b=c&d"] {
            let line = JSONText.object([("k", JSONText.quote(s)), ("n", "3")])
            let back = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            XCTAssertEqual(back?["k"] as? String, s, line)
            XCTAssertEqual(back?["n"] as? Int, 3)
            XCTAssertFalse(line.contains("\n"), "one line whatever the input")
        }
    }
}
