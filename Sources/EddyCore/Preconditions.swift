/// Evaluates a client's conditional request headers against the stored representation
/// (RFC 9110 section 13.2.2, in its order: If-Match, If-Unmodified-Since, If-None-Match,
/// If-Modified-Since, then If-Range).
public enum Preconditions {
    /// The outcome before any Range processing.
    public enum Outcome: Equatable, Sendable {
        case proceed
        case notModified
        case preconditionFailed
    }

    /// Evaluates the preconditions of a GET/HEAD.
    public static func evaluate(headers h: HTTPHeaders, etag: String?, lastModified: String?) -> Outcome {
        // Most requests carry no precondition: parse the validators only when one is present
        // (this is on every cache hit; measured at ~7 % of a small hit's CPU when done eagerly).
        guard h["If-Match"] != nil || h["If-Unmodified-Since"] != nil || h["If-None-Match"] != nil
                || h["If-Modified-Since"] != nil else { return .proceed }
        let current = etag.flatMap(EntityTag.parse)
        let lm = lastModified.flatMap({ HTTPDate.parse($0) })
        if let im = h["If-Match"] {
            // Strong comparison; "*" matches any current representation (section 13.1.1).
            if let tags = EntityTag.parseList(im) {
                guard let c = current, tags.contains(where: { $0.strongMatches(c) }) else { return .preconditionFailed }
            }
        } else if let ius = h["If-Unmodified-Since"].flatMap({ HTTPDate.parse($0) }) {
            guard let lm, lm <= ius else { return .preconditionFailed }
        }
        if let inm = h["If-None-Match"] {
            // Weak comparison (section 13.1.2); for GET/HEAD a match means 304.
            guard let tags = EntityTag.parseList(inm) else { return .notModified }
            if let c = current, tags.contains(where: { $0.weakMatches(c) }) { return .notModified }
        } else if let ims = h["If-Modified-Since"].flatMap({ HTTPDate.parse($0) }), let lm, lm <= ims {
            return .notModified
        }
        return .proceed
    }

    /// True when the Range header applies: no If-Range, or If-Range matches the current
    /// representation by strong ETag, or by a date exactly equal to Last-Modified (section 13.1.5).
    public static func rangeApplies(ifRange: String?, etag: String?, lastModified: String?) -> Bool {
        guard let ir = ifRange?.trimmingOWS(), !ir.isEmpty else { return true }
        if ir.hasPrefix("\"") || ir.hasPrefix("W/") {
            guard let want = EntityTag.parse(String(ir)), let have = etag.flatMap(EntityTag.parse) else { return false }
            return want.strongMatches(have)
        }
        guard let d = HTTPDate.parse(String(ir)), let lm = lastModified.flatMap({ HTTPDate.parse($0) }) else { return false }
        return d == lm
    }
}
