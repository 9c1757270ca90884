import EddyCore

/// What a fill started for a ticket sends upstream: the URL, whether the address policy applies
/// (see `UpstreamGate`), and the client's User-Agent and end-to-end fields when a client asked
/// (see `RequestForwarding.fill`). A fill is shared, so it carries the fields of the request that
/// started it.
package struct FetchContext {
    let url: UpstreamURL
    let checkAddress: Bool
    /// Who supplies the client's fields, asked only when a fill is built: a hit never needs them
    /// (building them on every request was 7% of a small hit's time). None for prefetch.
    let client: (any FetchClient)?
    /// The cache key the fill is discovered under: the URL's, or the variant's the client selects
    /// (see `Coordinators.resolve`).
    let key: String
    /// The URL's own cache key (`TargetResolver.cacheKey`: the URL, less the query parameters a
    /// `cache_key` rule leaves out), which a varying response's variants hang from.
    let base: String
    /// The byte rates a download's fetch keeps to (its own `--rate`, `download_rate_limit`):
    /// applied while no player reads the fill (see `FillSession.rateWait`). None for players.
    let limiters: [RateLimiter]
    /// The fill asks the origin itself, not a parent's stored copy (`Cache-Control: no-cache`,
    /// RFC 9111 section 5.2.1.4): a download's refresh.
    let askOrigin: Bool
    /// The oldest stored copy a parent may answer with (`Cache-Control: max-age`, RFC 9111
    /// section 5.2.1.1), or nil for any fresh one: a tier's multivariant playlists.
    let maxAge: Int?

    package init(url: UpstreamURL, checkAddress: Bool, client: (any FetchClient)? = nil, key: String? = nil, base: String? = nil,
                 limiters: [RateLimiter] = [], askOrigin: Bool = false, maxAge: Int? = nil) {
        self.limiters = limiters
        self.askOrigin = askOrigin
        self.maxAge = maxAge
        self.base = base ?? key ?? url.description
        self.url = url
        self.checkAddress = checkAddress
        self.client = client
        self.key = key ?? url.description
    }

    /// The client's User-Agent.
    var userAgent: String? { client?.userAgent }
    /// The client's end-to-end fields a fill forwards.
    var headers: HTTPHeaders { client?.forwardedFields ?? HTTPHeaders() }
    /// The fields that select a variant: the client's request's (none for prefetch).
    var requestHeaders: HTTPHeaders { client?.requestHeaders ?? HTTPHeaders() }
}
