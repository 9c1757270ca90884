import EddyCore

/// Resolves URI references found in playlists against the playlist's URL (RFC 3986 section 5.2),
/// keeping percent-encoding and query strings exactly as written.
public enum URIReference {
    /// The absolute http(s) URL `reference` names, or nil when it is not an http(s) reference
    /// (`skd://`, `data:`, ...) or is malformed. Fragments are dropped: they are never sent.
    public static func resolve(_ reference: String, against base: UpstreamURL) -> UpstreamURL? {
        if isPlainRelative(reference) {
            // Section 5.2.3's merge with nothing else to do, the common case of a media playlist
            // ("seg1.ts", "v0/seg1.m4s?t=1"): a large plan resolves tens of thousands (issue 59).
            let path = pathPart(base.pathAndQuery)
            let dir = path.lastIndex(of: "/").map { path[...$0] } ?? "/"
            if !hasDotSegment(dir) { return base.replacing(pathAndQuery: dir + reference) }
        }
        return merged(reference, against: base)
    }

    /// `resolve` in full: every form of reference.
    static func merged(_ reference: String, against base: UpstreamURL) -> UpstreamURL? {
        var ref = Substring(reference.trimmingOWS())
        if let hash = ref.firstIndex(of: "#") { ref = ref[..<hash] }
        if let scheme = schemeOf(ref) {
            guard scheme == "http" || scheme == "https" else { return nil }
            guard let u = UpstreamURL.parse(ref) else { return nil }
            return normalized(u)
        }
        if ref.hasPrefix("//") { return UpstreamURL.parse(Substring(base.scheme + ":" + ref)).map(normalized) }
        let basePath = pathPart(base.pathAndQuery)
        var target: String
        if ref.isEmpty {
            target = base.pathAndQuery
        } else if ref.hasPrefix("/") {
            target = removeDotSegments(in: String(ref))
        } else if ref.hasPrefix("?") {
            target = basePath + ref
        } else {
            // Merge (section 5.2.3): the base path up to its last "/", then the reference.
            let dir = basePath.lastIndex(of: "/").map { String(basePath[...$0]) } ?? "/"
            target = removeDotSegments(in: dir + ref)
        }
        guard target.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else { return nil }
        return UpstreamURL(scheme: base.scheme, host: base.host, port: base.port, pathAndQuery: target)
    }

    private static func normalized(_ u: UpstreamURL) -> UpstreamURL {
        UpstreamURL(scheme: u.scheme, host: u.host, port: u.port, pathAndQuery: removeDotSegments(in: u.pathAndQuery))
    }

    /// `scheme` when `s` starts with `scheme:` (RFC 3986 section 3.1), lowercased.
    static func schemeOf(_ s: Substring) -> String? {
        guard let colon = s.firstIndex(of: ":"), colon > s.startIndex else { return nil }
        let name = s[..<colon]
        guard let first = name.first, first.isASCII, first.isLetter,
              name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }) else { return nil }
        return name.lowercased()
    }

    private static func pathPart(_ pathAndQuery: String) -> String {
        guard let q = pathAndQuery.firstIndex(of: "?") else { return pathAndQuery }
        return String(pathAndQuery[..<q])
    }

    /// A relative-path reference of visible ASCII without a scheme, fragment or dot segment, not
    /// starting with "/" or "?": one resolved by appending it to the base's directory.
    static func isPlainRelative(_ reference: String) -> Bool {
        var previous = UInt8(ascii: "/"), first = true, inQuery = false
        for byte in reference.utf8 {
            guard byte > 32 && byte < 127 && byte != UInt8(ascii: "#") else { return false }
            if !inQuery {
                if byte == UInt8(ascii: ":") || (first && byte == UInt8(ascii: "/")) { return false }
                if byte == UInt8(ascii: ".") && previous == UInt8(ascii: "/") { return false }
                if byte == UInt8(ascii: "?") {
                    if first { return false }
                    inQuery = true
                }
            }
            (previous, first) = (byte, false)
        }
        return !first
    }

    /// Whether `path` may hold a dot segment: it starts with "." or holds "/.".
    static func hasDotSegment(_ path: Substring) -> Bool {
        var previous: UInt8 = UInt8(ascii: "/")
        for byte in path.utf8 {
            if byte == UInt8(ascii: ".") && previous == UInt8(ascii: "/") { return true }
            previous = byte
        }
        return false
    }

    /// remove_dot_segments of RFC 3986 section 5.2.4, applied to the path only (the query is kept).
    static func removeDotSegments(in pathAndQuery: String) -> String {
        var path = Substring(pathAndQuery), query = Substring("")
        if let q = pathAndQuery.firstIndex(of: "?") {
            path = pathAndQuery[..<q]
            query = pathAndQuery[q...]
        }
        // A dot segment is "." or ".." between slashes (or first): a path without "/." and not
        // starting with "." has none ("seg1.ts" and "/v0/seg1.ts" are common; splitting and
        // joining them cost most of a large plan's build, issue 59).
        guard hasDotSegment(path) else { return pathAndQuery }
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for (i, seg) in segments.enumerated() {
            let last = i == segments.count - 1
            if seg == "." {
                if last { output.append("") }
            } else if seg == ".." {
                if output.count > 1 { output.removeLast() }
                if last { output.append("") }
            } else {
                output.append(seg)
            }
        }
        var result = output.joined(separator: "/")
        if !result.hasPrefix("/") { result = "/" + result }
        return result + query
    }
}
