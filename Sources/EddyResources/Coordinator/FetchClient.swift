import EddyCore

/// The request a fill is made for, asked for its fields when the fill is built.
package protocol FetchClient: AnyObject {
    /// The client's User-Agent, sent on as eddy's own.
    var userAgent: String? { get }
    /// The end-to-end fields a fill forwards (see `ExchangeServices.upstreamFields`).
    var forwardedFields: HTTPHeaders { get }
    /// The request's own fields, which select a variant of a varying response (RFC 9111 section 4.1).
    var requestHeaders: HTTPHeaders { get }
}
