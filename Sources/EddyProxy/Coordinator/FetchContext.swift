import EddyCore

/// What a fill started for a ticket sends upstream: the URL, whether the address policy applies
/// (see `UpstreamGate`), and the client's User-Agent and end-to-end fields when a client asked
/// (see `RequestForwarding.fill`). A fill is shared, so it carries the fields of the request that
/// started it.
struct FetchContext {
    let url: UpstreamURL
    let checkAddress: Bool
    let userAgent: String?
    var headers = HTTPHeaders()

    /// The cache key: the normalized upstream URL.
    var key: String { url.description }
}
