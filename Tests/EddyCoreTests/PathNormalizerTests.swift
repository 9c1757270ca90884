import XCTest
@testable import EddyCore

final class PathNormalizerTests: XCTestCase {
    private func normalized(_ s: String) -> String? {
        if case let .success(p) = PathNormalizer.normalize(s) { return p }
        return nil
    }

    private func refusal(_ s: String) -> PathNormalizer.Refusal? {
        if case let .failure(r) = PathNormalizer.normalize(s) { return r }
        return nil
    }

    func test_normalize_dotSegmentsInsideTheRoot_areResolved() {
        XCTAssertEqual(normalized("/a/b/../c"), "/a/c")
        XCTAssertEqual(normalized("/a/./b"), "/a/b")
        XCTAssertEqual(normalized("/sub/../ok.txt"), "/ok.txt")
        XCTAssertEqual(normalized("/a/b/.."), "/a/")
        XCTAssertEqual(normalized("/a/."), "/a/")
        XCTAssertEqual(normalized("/a/%2e%2e/b"), "/b")
        XCTAssertEqual(normalized("/plain/path.mp4"), "/plain/path.mp4")
    }

    func test_normalize_climbAboveTheRoot_isRefused() {
        for s in ["/../private/secret.txt", "/%2e%2e/private", "/.%2e/private", "/%2E%2E/private", "/%2e./x",
                  "/a/../../private", "/..", "/a/b/../../../c"] {
            XCTAssertEqual(refusal(s), .climbsAboveRoot, s)
        }
    }

    func test_normalize_dotsNextToEncodedSeparators_areRefused() {
        for s in ["/..%2fprivate/secret.txt", "/..%2Fprivate", "/..%5cprivate", "/a/%2e%2e%2f..%2fx", "/..\\private",
                  "/x/.%2fy", "/%2f../x"] {
            XCTAssertEqual(refusal(s), .ambiguousDotSegment, s)
        }
    }

    func test_normalize_encodedSeparatorsWithoutDots_areKept() {
        XCTAssertEqual(normalized("/a%2Fb/c"), "/a%2Fb/c")
        XCTAssertEqual(normalized("/..a%2fb"), "/..a%2fb")
    }

    func test_normalize_unreservedEscapes_areDecodedOthersKept() {
        XCTAssertEqual(normalized("/%41%7e%2D/%20x"), "/A~-/%20x")
        XCTAssertEqual(normalized("/a%2Fb%20c"), "/a%2Fb%20c")
    }

    func test_normalize_query_isKeptAsIs() {
        XCTAssertEqual(normalized("/a/../b?x=/../y&%2e"), "/b?x=/../y&%2e")
        XCTAssertEqual(normalized("/../b?x"), nil)
    }

    func test_mayNeedNormalizing_onlyDotSegmentsEscapesAndBackslashes() {
        for s in ["/a/b.mp4", "/movies/a.b.c.ts?x=/../y", "/", "/a..b/c", "/x?%2e"] {
            XCTAssertFalse(PathNormalizer.mayNeedNormalizing(s), s)
        }
        for s in ["/../a", "/a/./b", "/.hidden", "/a%2fb", "/a\\b", "/%41"] {
            XCTAssertTrue(PathNormalizer.mayNeedNormalizing(s), s)
        }
    }

    func test_normalize_pathsThatNeedNoWork_areUnchanged() {
        for s in ["/a/b.mp4", "/movies/a.b.c.ts?x=/../y", "/", "/a..b/c"] {
            XCTAssertEqual(normalized(s), s)
        }
    }

    func test_normalize_malformedEscapes_areRefused() {
        for s in ["/a%2", "/%zz", "/%", "/a%g0", "/v/%2%65%2%65/x", "/http//1%2%65"] {
            XCTAssertEqual(refusal(s), .malformedEscape, s)
        }
    }

    /// FuzzURL found `%2%65` decoding into a new escape `%2e`; whatever is accepted must be a fixed point.
    func test_normalize_isIdempotentOnWhatItAccepts() {
        for s in ["/a/%41/../b", "/%2e/x", "/a%2Fb", "/x/./%7e/y?q=%2", "/%25%32%65"] {
            guard let once = normalized(s) else { continue }
            XCTAssertEqual(normalized(once), once, s)
        }
    }

    func test_normalize_escapedControlCharactersAndPathParameterDots_areRefused() {
        XCTAssertEqual(refusal("/a%00.mp4"), .malformedEscape)
        XCTAssertEqual(refusal("/a%0a"), .malformedEscape)
        XCTAssertEqual(refusal("/a%7F"), .malformedEscape)
        XCTAssertEqual(refusal("/..;/private"), .ambiguousDotSegment)
        XCTAssertEqual(refusal("/a/.;x/b"), .ambiguousDotSegment)
        XCTAssertEqual(normalized("/a;b/c.ts;jsessionid=1"), "/a;b/c.ts;jsessionid=1")
    }

    /// FuzzURL: "/v//-2;./" skipped normalization in the resolver while the gate refused it.
    func test_mayNeedNormalizing_agreesWithNormalizeOnPathParameterDots() {
        for s in ["//-2;./", "/a;.", "/x;..;/y"] {
            XCTAssertTrue(PathNormalizer.mayNeedNormalizing(s), s)
            XCTAssertEqual(refusal(s), .ambiguousDotSegment, s)
        }
    }
}
