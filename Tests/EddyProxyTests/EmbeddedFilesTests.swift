import EddyAdmin
import Foundation
import XCTest

/// The files built into the binary are the ones in the tree (issue 63): a change to the dashboard
/// or to docs/openapi.json that `scripts/embed` did not carry into EmbeddedFiles.swift fails here,
/// in `swift test`, not only in a browser scenario that needs selenium.
final class EmbeddedFilesTests: XCTestCase {
    /// The same list as scripts/embed's: request path, file in the tree.
    private let files = [("/", "dashboard/index.html"), ("/dashboard.css", "dashboard/dashboard.css"),
                         ("/dashboard.js", "dashboard/dashboard.js"), ("/play.html", "dashboard/play.html"),
                         ("/play.js", "dashboard/play.js"), ("/api/openapi.json", "docs/openapi.json")]

    func test_everyEmbeddedFile_isTheFileInTheTree() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        XCTAssertEqual(Set(EmbeddedFiles.byPath.keys), Set(files.map(\.0)))
        for (path, source) in files {
            let onDisk = try String(contentsOf: root.appendingPathComponent(source), encoding: .utf8)
            // Not XCTAssertEqual: its message would print both files whole.
            XCTAssertTrue(EmbeddedFiles.byPath[path]?.text == onDisk, "\(path) differs from \(source): run scripts/embed")
        }
    }
}
