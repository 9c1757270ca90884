import EddyCore

/// Resolves URI references found in playlists against the playlist's URL (RFC 3986 section 5.2),
/// keeping percent-encoding and query strings exactly as written.
public enum URIReference {
    /// The absolute http(s) URL `reference` names, or nil when it is not an http(s) reference
    /// (`skd://`, `data:`, ...) or is malformed. Fragments are dropped: they are never sent.
    public static func resolve(_ reference: String, against base: UpstreamURL) -> UpstreamURL? {
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

    /// remove_dot_segments of RFC 3986 section 5.2.4, applied to the path only (the query is kept).
    static func removeDotSegments(in pathAndQuery: String) -> String {
        var path = Substring(pathAndQuery), query = Substring("")
        if let q = pathAndQuery.firstIndex(of: "?") {
            path = pathAndQuery[..<q]
            query = pathAndQuery[q...]
        }
        guard path.contains(".") else { return pathAndQuery }
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
