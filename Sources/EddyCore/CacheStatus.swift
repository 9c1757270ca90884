/// A `Cache-Status` field value (RFC 9211), e.g. `eddy; hit` or `eddy; fwd=miss; stored`.
public struct CacheStatus: Equatable, Sendable, CustomStringConvertible {
    /// Why the cache forwarded (RFC 9211 section 2.2), nil for a hit.
    public enum Forward: String, Sendable {
        case uriMiss = "uri-miss"
        /// Stored responses for the URL vary, and none matches this request's fields.
        case varyMiss = "vary-miss"
        case miss
        case partial
        case stale
        case bypass
        case method
        case request
    }

    public var forward: Forward?
    /// The origin's status when forwarded.
    public var forwardStatus: Int?
    /// True when the response was (at least partly) stored.
    public var stored = false
    /// Remaining freshness in seconds (ttl parameter).
    public var ttl: Int?
    /// Free-text detail, e.g. why it was not stored.
    public var detail: String?

    public init(forward: Forward? = nil) { self.forward = forward }

    /// The cache's name in every entry (the config's `name`): set once at start, before any
    /// loop runs, and read-only afterwards.
    nonisolated(unsafe) public static var cacheName = "eddy"

    public var description: String {
        // Appends into one reserved buffer (no interpolation): this is built for every response.
        var s = CacheStatus.cacheName
        s.reserveCapacity(48)
        if let forward {
            s += "; fwd="
            s += forward.rawValue
        } else {
            s += "; hit"
        }
        if let forwardStatus {
            s += "; fwd-status="
            s += String(forwardStatus)
        }
        if let ttl {
            s += "; ttl="
            s += String(ttl)
        }
        if stored { s += "; stored" }
        if let detail { s += "; detail=" + (CacheStatus.isToken(detail) ? detail : CacheStatus.sfString(detail)) }
        return s
    }

    /// `text` as an RFC 8941 sf-string: quoted, DQUOTE and backslash escaped, and anything outside
    /// %x20-7E (which an sf-string cannot carry) replaced with `?`.
    /// An sf-token (RFC 8941 section 3.3.4: ALPHA or "*", then tchar, ":" or "/"): written bare,
    /// as RFC 9211's examples write `detail`.
    static func isToken(_ text: String) -> Bool {
        let u = Array(text.utf8)
        guard let f = u.first, (f | 0x20) >= 0x61 && (f | 0x20) <= 0x7A || f == 0x2A else { return false }
        return u.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A) || "!#$%&'*+-.^_`|~:/".utf8.contains(c)
        }
    }

    static func sfString(_ text: String) -> String {
        var out = "\""
        for u in text.unicodeScalars {
            switch u.value {
            case 0x22, 0x5C: out += "\\"; out.unicodeScalars.append(u)
            case 0x20...0x7E: out.unicodeScalars.append(u)
            default: out += "?"
            }
        }
        return out + "\""
    }

    /// The short word for the access log: HIT, MISS, PARTIAL, STALE, BYPASS...
    public var logWord: String {
        let word = forward.map { $0.rawValue.uppercased() } ?? "HIT"
        return detail == CacheStatus.readaheadDetail ? word + "+READAHEAD" : word
    }

    /// The detail of a response whose fill asked the origin only `readahead` past its reader.
    public static let readaheadDetail = "readahead"
}
