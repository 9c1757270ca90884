import EddyLoop

/// What the access log and the metrics keep of an answered request, read once it is answered:
/// the same from a `ServerRequest` on a worker loop and from the home loop's view of it.
package struct AnsweredRequest: Sendable {
    package let peer: String
    package let method: String
    package let uri: String
    package let version: String
    package let status: Int
    package let bodyBytes: Int
    package let referer: String?
    package let userAgent: String?
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
