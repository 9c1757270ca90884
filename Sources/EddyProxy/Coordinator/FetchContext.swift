import EddyCore

/// What a fill started for a ticket sends upstream: the URL, whether the address policy applies
/// (see `UpstreamGate`), and the client's User-Agent and end-to-end fields when a client asked
/// (see `RequestForwarding.fill`). A fill is shared, so it carries the fields of the request that
/// started it.
struct FetchContext {
    let url: UpstreamURL
    let checkAddress: Bool
    /// Who supplies the client's fields, asked only when a fill is built: a hit never needs them
    /// (building them on every request was 7% of a small hit's time). None for prefetch.
    let client: (any FetchClient)?

    init(url: UpstreamURL, checkAddress: Bool, client: (any FetchClient)? = nil) {
        self.url = url
        self.checkAddress = checkAddress
        self.client = client
    }

    /// The client's User-Agent.
    var userAgent: String? { client?.userAgent }
    /// The client's end-to-end fields a fill forwards.
    var headers: HTTPHeaders { client?.forwardedFields ?? HTTPHeaders() }

    /// The cache key: the normalized upstream URL.
    var key: String { url.description }
}
