import EddyLoop

/// What the access log and the metrics keep of an answered request, read once it is answered:
/// the same from a `ServerRequest` on a worker loop and from the home loop's view of it.
struct AnsweredRequest: Sendable {
    let peer: String
    let method: String
    let uri: String
    let version: String
    let status: Int
    let bodyBytes: Int
    let referer: String?
    let userAgent: String?
    /// When the head went out (monotonic seconds), if it did.
    let headSentAt: Double?

    init(_ r: any ClientRequest) {
        peer = r.peer
        method = r.method
        uri = r.uri
        version = r.version
        status = r.status
        bodyBytes = r.bodyBytesSent
        referer = r.headers["Referer"]
        userAgent = r.headers["User-Agent"]
        headSentAt = r.headSentAt
    }
}
