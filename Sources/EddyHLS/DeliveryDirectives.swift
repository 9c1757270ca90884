/// LL-HLS delivery directives in a playlist request's query (RFC 8216bis section 6.2.5):
/// `_HLS_msn`, `_HLS_part` (a blocking reload) and `_HLS_skip` (a delta update).
///
/// Viewers of one rendition ask for the same (msn, part) at about the same moment; written in
/// any order, they are the same request. `canonical` puts the directives last, in the order the
/// spec lists them, so that the cache key (the URL) is one per playlist and directives, and the
/// cache's single flight collapses the held requests into one to the origin (nginx does this with
/// `proxy_cache_lock` on the query, Varnish by waiting-list coalescing).
public enum DeliveryDirectives {
    /// The directive names, in canonical order.
    static let names = ["_HLS_msn", "_HLS_part", "_HLS_skip"]
    /// Each name and its `=`, as a parameter starts with it.
    static let prefixes = names.map { $0 + "=" }

    /// `pathAndQuery` with its delivery directives moved after every other parameter, in the
    /// order `_HLS_msn`, `_HLS_part`, `_HLS_skip`; other parameters keep their order and bytes.
    /// Unchanged when it has no directive. A directive given twice keeps both, first one first
    /// (the origin decides what that means; it is still one key per spelling).
    public static func canonical(_ pathAndQuery: String) -> String {
        guard let q = pathAndQuery.firstIndex(of: "?") else { return pathAndQuery }
        let path = pathAndQuery[..<q]
        let params = pathAndQuery[pathAndQuery.index(after: q)...].split(separator: "&", omittingEmptySubsequences: false)
        var others: [Substring] = [], directives: [[Substring]] = Array(repeating: [], count: names.count)
        for p in params {
            let name = p.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            if let i = names.firstIndex(where: { $0 == name }) { directives[i].append(p) } else { others.append(p) }
        }
        guard directives.contains(where: { !$0.isEmpty }) else { return pathAndQuery }
        return String(path) + "?" + (others + directives.joined()).joined(separator: "&")
    }
}
