import RawStructuredFieldValues

/// A targeted cache-control field such as `CDN-Cache-Control` (RFC 9213 section 2.1): a
/// Structured Field Dictionary (RFC 8941 section 3.2) of cache directives, parsed strictly, not
/// with Cache-Control's lenient rules.
public enum TargetedCacheControl {
    /// Directives whose value is delta-seconds: a non-negative Integer here.
    static let seconds: Set<String> = ["max-age", "s-maxage", "stale-while-revalidate", "stale-if-error"]

    /// The directives of `value`, or nil when the field is to be ignored as if absent: it is
    /// empty or not a valid Dictionary (section 2.1: "that field SHOULD be ignored"), or a
    /// directive eddy obeys has a value of the wrong type (a decimal, a string, a negative
    /// number), which section 2.1 says not to consume; ignoring only that directive would turn
    /// `max-age="10000"` into no lifetime at all, which is not what the origin meant either.
    /// Parameters are ignored (section 2.1). Keys are lowercase by the Dictionary's own syntax.
    public static func parse(_ value: String) -> CacheControl? {
        var parser = StructuredFieldValueParser(Array(value.utf8))
        guard let dictionary = try? parser.parseDictionaryFieldValue(), dictionary.count > 0 else { return nil }
        var cc = CacheControl()
        for (key, member) in dictionary {
            guard case let .item(item) = member else {
                if seconds.contains(key) { return nil }
                continue
            }
            if seconds.contains(key) {
                guard case let .integer(n) = item.rfc9651BareItem, n >= 0 else { return nil }
                // RFC 9111 section 1.2.2: a lifetime past 2^31 is taken as 2^31.
                let delta = Int(min(n, 1 << 31))
                switch key {
                case "max-age": cc.maxAge = delta
                case "s-maxage": cc.sMaxAge = delta
                case "stale-while-revalidate": cc.staleWhileRevalidate = delta
                default: cc.staleIfError = delta
                }
                continue
            }
            // A bare key is the Boolean true; `no-store=?0` turns the directive off.
            let on: Bool
            switch item.rfc9651BareItem {
            case let .bool(b): on = b
            default: on = true // e.g. private="field": treated as unqualified, as in Cache-Control
            }
            guard on else { continue }
            switch key {
            case "no-store": cc.noStore = true
            case "no-cache": if case .bool = item.rfc9651BareItem { cc.noCache = true }
            case "private": cc.isPrivate = true
            case "public": cc.isPublic = true
            case "must-revalidate": cc.mustRevalidate = true
            case "proxy-revalidate": cc.proxyRevalidate = true
            default: break
            }
        }
        return cc
    }
}
