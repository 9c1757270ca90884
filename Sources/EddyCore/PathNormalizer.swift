/// Normalizes the path of a request-target before it is joined to a mapped origin's base, so that
/// a client can not climb out of the route (`/v/../private`, `/v/%2e%2e/private`, `/v/..%2fprivate`).
///
/// Origins decode and resolve paths in their own ways (nginx merges `%2F` into a separator, some
/// servers take `\` as one), so eddy resolves what is unambiguous and refuses what is not:
/// - percent-encoded unreserved characters are decoded (RFC 3986 section 6.2.2.2), so `%2e` is `.`;
/// - dot segments are removed (RFC 3986 section 5.2.4);
/// - a `..` that would climb above the route's root is refused;
/// - a segment that is only dots once encoded separators (`%2F`, `%5C`) and `\` are also taken as
///   separators is refused: the origin could read it as a climb that eddy can not see.
public enum PathNormalizer {
    /// Why a path was refused.
    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case climbsAboveRoot
        case ambiguousDotSegment
        case malformedEscape

        public var description: String {
            switch self {
            case .climbsAboveRoot: return "path climbs above the route's base"
            case .ambiguousDotSegment: return "dot segment next to an encoded separator"
            case .malformedEscape: return "a '%' not followed by two hex digits, or an escaped control character"
            }
        }
    }

    /// False when `pathAndQuery` has no dot segment, escape or backslash, so `normalize` would return
    /// it unchanged: a dot segment starts with "/." or, to servers that drop path parameters, ";."
    /// (`/a.mp4` has a dot but neither). One byte scan, for the request path.
    public static func mayNeedNormalizing(_ pathAndQuery: String) -> Bool {
        var previous: UInt8 = 0
        for c in pathAndQuery.utf8 {
            if c == UInt8(ascii: "?") { return false }
            if c == UInt8(ascii: "%") || c == UInt8(ascii: "\\")
                || (c == UInt8(ascii: ".") && (previous == UInt8(ascii: "/") || previous == UInt8(ascii: ";"))) { return true }
            previous = c
        }
        return false
    }

    /// `pathAndQuery` (starting with `/`) normalized; the query is kept as it is.
    public static func normalize(_ pathAndQuery: String) -> Result<String, Refusal> {
        let bytes = Array(pathAndQuery.utf8)
        let q = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.count
        // A '%' must start an escape (RFC 3986 section 2.1). A stray one could combine with a decoded
        // character into a new escape (`%2%65` decodes to `%2e`), which the origin would decode
        // again into a dot that eddy never saw (found by the FuzzURL harness).
        guard hasOnlyWellFormedEscapes(bytes[..<q]) else { return .failure(.malformedEscape) }
        let path = decodeUnreserved(bytes[..<q])
        if hasAmbiguousDots(path) { return .failure(.ambiguousDotSegment) }
        guard let resolved = removeDotSegments(path) else { return .failure(.climbsAboveRoot) }
        var out = resolved
        out.append(contentsOf: bytes[q...])
        return .success(String(decoding: out, as: UTF8.self))
    }

    /// remove_dot_segments (RFC 3986 section 5.2.4) on an absolute path; nil when a `..` has no
    /// segment left to remove (a climb above `/`).
    public static func removeDotSegments(_ path: [UInt8]) -> [UInt8]? {
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
        guard path.contains(dot) else { return path }
        var output: [ArraySlice<UInt8>] = []
        let segments = path.split(separator: slash, omittingEmptySubsequences: false)
        for (i, seg) in segments.enumerated() {
            let last = i == segments.count - 1
            if i == 0 && seg.isEmpty { output.append(seg); continue } // the leading "/"
            if seg.elementsEqual([dot]) {
                if last { output.append([]) }
            } else if seg.elementsEqual([dot, dot]) {
                guard output.count > 1 else { return nil }
                output.removeLast()
                if last { output.append([]) }
            } else {
                output.append(seg)
            }
        }
        var result: [UInt8] = []
        for (i, seg) in output.enumerated() {
            if i > 0 { result.append(slash) }
            result.append(contentsOf: seg)
        }
        if result.first != slash { result.insert(slash, at: 0) }
        return result
    }

    /// True when every '%' starts a two-hex-digit escape of a printable character (an escaped NUL
    /// or control character would end or bend the path on the origin's side).
    static func hasOnlyWellFormedEscapes(_ s: ArraySlice<UInt8>) -> Bool {
        var i = s.startIndex
        while i < s.endIndex {
            if s[i] == UInt8(ascii: "%") {
                guard i + 2 < s.endIndex, let h = HexDigit.value(s[i + 1]), let l = HexDigit.value(s[i + 2]) else { return false }
                let c = h << 4 | l
                guard c >= 0x20 && c != 0x7F else { return false }
                i += 3
                continue
            }
            i += 1
        }
        return true
    }

    /// Decodes `%XX` where XX is an unreserved character (ALPHA / DIGIT / "-" / "." / "_" / "~");
    /// every other escape is kept as written.
    static func decodeUnreserved(_ s: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(s.count)
        var i = s.startIndex
        while i < s.endIndex {
            if s[i] == UInt8(ascii: "%"), i + 2 < s.endIndex, let h = HexDigit.value(s[i + 1]), let l = HexDigit.value(s[i + 2]) {
                let c = h << 4 | l
                if isUnreserved(c) {
                    out.append(c)
                    i += 3
                    continue
                }
            }
            out.append(s[i])
            i += 1
        }
        return out
    }

    /// True when, splitting also at `%2F`, `%5C` and `\`, some piece is `.` or `..` and the path
    /// contains such a separator (plain dot segments are resolved, not refused).
    static func hasAmbiguousDots(_ path: [UInt8]) -> Bool {
        var pieces: [[UInt8]] = [[]]
        var sawEncoded = false
        var i = 0
        while i < path.count {
            let c = path[i]
            // ';' too: some servers (Tomcat) drop path parameters, so "/..;/" is a ".." to them.
            if c == UInt8(ascii: "/") || c == UInt8(ascii: "\\") || c == UInt8(ascii: ";") {
                if c != UInt8(ascii: "/") { sawEncoded = true }
                pieces.append([])
                i += 1
                continue
            }
            if c == UInt8(ascii: "%"), i + 2 < path.count, let h = HexDigit.value(path[i + 1]), let l = HexDigit.value(path[i + 2]),
               h << 4 | l == UInt8(ascii: "/") || h << 4 | l == UInt8(ascii: "\\") {
                sawEncoded = true
                pieces.append([])
                i += 3
                continue
            }
            pieces[pieces.count - 1].append(c)
            i += 1
        }
        guard sawEncoded else { return false }
        return pieces.contains { $0 == [UInt8(ascii: ".")] || $0 == [UInt8(ascii: "."), UInt8(ascii: ".")] }
    }

    private static func isUnreserved(_ c: UInt8) -> Bool {
        (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c == 45 || c == 46 || c == 95 || c == 126
    }
}
