import EddyCore

/// What a fill started for a ticket sends upstream: the URL, whether the address policy applies
/// (see `UpstreamGate`), and the client's User-Agent when a client asked.
struct FetchContext {
    let url: UpstreamURL
    let checkAddress: Bool
    let userAgent: String?

    /// The cache key: the normalized upstream URL.
    var key: String { url.description }
}
