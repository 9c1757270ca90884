import EddyCore

/// An HLS playlist (RFC 8216 and its second edition draft) as a list of lines, each kept with its
/// own line terminator so that serializing reproduces the input byte for byte.
///
/// Only what eddy needs is interpreted: which lines are URIs, which tag attributes hold URIs,
/// the playlist kind, and the media segments in order. Unknown tags, comments, blank lines and
/// CRLF endings pass through untouched.
public struct HLSPlaylist: Sendable {
    /// One line, without its terminator.
    public struct Line: Sendable {
        public var text: Substring
        /// "\n", "\r\n", "\r" or "" (last line without a newline).
        public var terminator: Substring
    }

    public internal(set) var lines: [Line]

    /// Tags whose quoted attributes carry URIs, and which attributes (RFC 8216bis section 4.4,
    /// content steering, and interstitial EXT-X-DATERANGE of the HLS interstitials spec).
    public static let uriAttributes: [String: [String]] = [
        "EXT-X-MEDIA": ["URI"], "EXT-X-I-FRAME-STREAM-INF": ["URI"], "EXT-X-IMAGE-STREAM-INF": ["URI"],
        "EXT-X-MAP": ["URI"], "EXT-X-KEY": ["URI"], "EXT-X-SESSION-KEY": ["URI"], "EXT-X-PART": ["URI"],
        "EXT-X-PRELOAD-HINT": ["URI"], "EXT-X-RENDITION-REPORT": ["URI"], "EXT-X-SESSION-DATA": ["URI"],
        "EXT-X-CONTENT-STEERING": ["SERVER-URI"], "EXT-X-DATERANGE": ["X-ASSET-URI", "X-ASSET-LIST"],
    ]

    /// Parses any text; nothing is rejected (a hostile playlist is still only lines).
    public init(_ text: String) {
        var out: [Line] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            // Split on \n, \r\n or \r. Swift treats "\r\n" as one Character, so scan the UTF-8 view.
            let u = rest.utf8
            var i = u.startIndex
            var found: (String.Index, String.Index)? = nil
            while i != u.endIndex {
                let c = u[i]
                if c == 10 { found = (i, u.index(after: i)); break }
                if c == 13 {
                    let j = u.index(after: i)
                    found = (i, (j != u.endIndex && u[j] == 10) ? u.index(after: j) : j)
                    break
                }
                i = u.index(after: i)
            }
            if let (end, next) = found {
                out.append(Line(text: rest[..<end], terminator: rest[end..<next]))
                rest = rest[next...]
            } else {
                out.append(Line(text: rest, terminator: ""))
                rest = rest[rest.endIndex...]
            }
        }
        lines = out
    }

    /// The playlist text: the lines and their terminators, as parsed (and as rewritten).
    public var text: String {
        var s = ""
        s.reserveCapacity(lines.reduce(0) { $0 + $1.text.utf8.count + 2 })
        for l in lines { s += l.text; s += l.terminator }
        return s
    }

    /// True when the text starts with #EXTM3U (after an optional UTF-8 BOM).
    public static func looksLikePlaylist(_ prefix: [UInt8]) -> Bool {
        var p = prefix[...]
        if p.starts(with: [0xEF, 0xBB, 0xBF]) { p = p.dropFirst(3) }
        return p.starts(with: Array("#EXTM3U".utf8))
    }

    /// The tag name of a line (`EXT-X-KEY` for `#EXT-X-KEY:...`), nil for URI lines and comments.
    static func tagName(_ line: Substring) -> Substring? {
        guard line.hasPrefix("#EXT") else { return nil }
        let body = line.dropFirst()
        return body[..<(body.firstIndex(of: ":") ?? body.endIndex)]
    }

    /// True for a URI line: not blank, not starting with '#' (RFC 8216 section 4.1).
    static func isURILine(_ line: Substring) -> Bool {
        let t = line.trimmingOWS()
        return !t.isEmpty && !t.hasPrefix("#")
    }

    /// The kind, from the tags present.
    public var kind: PlaylistKind {
        var target = 0.0, endList = false, vod = false, master = false
        for l in lines {
            guard let tag = HLSPlaylist.tagName(l.text) else { continue }
            switch tag {
            case "EXT-X-STREAM-INF", "EXT-X-MEDIA", "EXT-X-I-FRAME-STREAM-INF": master = true
            case "EXT-X-ENDLIST": endList = true
            case "EXT-X-PLAYLIST-TYPE": vod = l.text.hasSuffix(":VOD")
            case "EXT-X-TARGETDURATION": target = Double(l.text.split(separator: ":").last ?? "") ?? 0
            default: break
            }
        }
        if master && target == 0 { return .multivariant }
        if endList || vod { return .vod }
        return .live(targetDuration: target > 0 ? target : 6)
    }

    /// URIs of media segments, in order (URI lines of a media playlist).
    public var segmentURIs: [String] {
        guard kind != .multivariant else { return [] }
        return lines.filter { HLSPlaylist.isURILine($0.text) }.map { String($0.text.trimmingOWS()) }
    }

    /// URIs of encryption keys (EXT-X-KEY, EXT-X-SESSION-KEY), as written.
    public var keyURIs: [String] {
        var out: [String] = []
        for l in lines {
            guard let tag = HLSPlaylist.tagName(l.text), tag == "EXT-X-KEY" || tag == "EXT-X-SESSION-KEY" else { continue }
            _ = HLSPlaylist.rewriteAttributes(l.text, names: ["URI"]) { out.append($0); return nil }
        }
        return out
    }

    /// True for the playlist media types of RFC 8216 section 4 (and the common x- variants).
    public static func isPlaylistType(_ contentType: String?) -> Bool {
        guard let ct = contentType?.split(separator: ";").first?.trimmingOWS().lowercased() else { return false }
        return ["application/vnd.apple.mpegurl", "application/x-mpegurl", "audio/mpegurl", "audio/x-mpegurl"].contains(ct)
    }

    /// True when a path (without query) ends in .m3u8 or .m3u.
    public static func isPlaylistPath(_ pathAndQuery: String) -> Bool {
        let path = pathAndQuery.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first?.lowercased() ?? ""
        return path.hasSuffix(".m3u8") || path.hasSuffix(".m3u")
    }

    /// True for LL-HLS delivery directives (RFC 8216bis section 6.2.5): blocking reloads and delta
    /// updates, which must reach the origin every time.
    public static func hasDeliveryDirectives(_ pathAndQuery: String) -> Bool {
        // A byte scan first: this runs on every request, and almost none carry a query.
        guard let q = pathAndQuery.utf8.firstIndex(of: UInt8(ascii: "?")) else { return false }
        return pathAndQuery[q...].split(whereSeparator: { $0 == "?" || $0 == "&" }).contains { param in
            DeliveryDirectives.prefixes.contains { param.hasPrefix($0) }
        }
    }

    /// Rewrites every URI: URI lines, and the URI attributes of `uriAttributes`' tags. `map` gets the
    /// URI as written and returns its replacement, or nil to leave it unchanged. Returns how many
    /// URIs changed. Everything else stays byte for byte.
    @discardableResult
    public mutating func rewriteURIs(_ map: (String) -> String?) -> Int {
        var changed = 0
        for i in lines.indices {
            let line = lines[i].text
            if HLSPlaylist.isURILine(line) {
                let lead = line.prefix { $0 == " " || $0 == "\t" }
                let trail = line.reversed().prefix { $0 == " " || $0 == "\t" }.count
                let uri = line.dropFirst(lead.count).dropLast(trail)
                if let new = map(String(uri)) {
                    lines[i].text = Substring(String(lead) + new + String(line.suffix(trail)))
                    changed += 1
                }
                continue
            }
            guard let tag = HLSPlaylist.tagName(line), let attrs = HLSPlaylist.uriAttributes[String(tag)], !attrs.isEmpty else { continue }
            if let (text, n) = HLSPlaylist.rewriteAttributes(line, names: attrs, map: map), n > 0 {
                lines[i].text = Substring(text)
                changed += n
            }
        }
        return changed
    }

    /// Rewrites the quoted values of the named attributes in one tag line, honouring quotes so a
    /// comma or `URI=` inside another attribute's quoted string is never mistaken for one.
    static func rewriteAttributes(_ line: Substring, names: [String], map: (String) -> String?) -> (String, Int)? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        var out = String(line[...colon])
        var changed = 0
        var s = line[line.index(after: colon)...]
        while !s.isEmpty {
            // One attribute: NAME=VALUE, VALUE either a quoted string or up to the next comma.
            let eq = s.firstIndex(of: "=")
            let comma = s.firstIndex(of: ",")
            guard let eq, comma.map({ eq < $0 }) ?? true else {
                // Not NAME=VALUE: copy up to and including the next comma as is.
                let end = comma.map { s.index(after: $0) } ?? s.endIndex
                out += s[..<end]
                s = s[end...]
                continue
            }
            let name = s[..<eq]
            out += s[...eq]
            var v = s[s.index(after: eq)...]
            if v.first == "\"" {
                let body = v.dropFirst()
                let close = body.firstIndex(of: "\"") ?? body.endIndex
                let afterClose = close == body.endIndex ? close : body.index(after: close)
                // An unterminated quoted string is left exactly as it is.
                if close != body.endIndex, names.contains(String(name.trimmingOWS())), let new = map(String(body[..<close])) {
                    out += "\"" + new + "\""
                    changed += 1
                } else {
                    out += v[..<afterClose]
                }
                v = v[afterClose...]
            }
            let end = v.firstIndex(of: ",").map { v.index(after: $0) } ?? v.endIndex
            out += v[..<end]
            s = v[end...]
        }
        return (out, changed)
    }
}
