import EddyCore
import EddyLoop

/// Every upstream request eddy makes, built in one place: fills, uncached tails and pass-through
/// responses differ only in the range and the conditional they carry. Transfers it creates pass
/// the curl driver's gate (`UpstreamGate`), whoever asks.
package final class UpstreamClient {
    let curl: CurlMulti
    let timeouts: UpstreamTransfer.Timeouts
    let metrics: Metrics
    /// This hop's `Via` entry (RFC 9110 section 7.6.3).
    package let via: String
    /// The parent tier every request goes through, when there is one.
    package var parents: Parents?

    package init(curl: CurlMulti, timeouts: UpstreamTransfer.Timeouts, metrics: Metrics, via: String) {
        self.curl = curl
        self.timeouts = timeouts
        self.metrics = metrics
        self.via = via
    }

    /// The condition an upstream request carries.
    package enum UpstreamCondition {
        case none
        /// `If-Range` with the stored validator: a changed origin answers 200 with the new version
        /// instead of a 206 that would be mixed with the old bytes (RFC 9110 section 13.1.5).
        case ifRange(String)
        /// Validation of a stored response with its validators; a 304 refreshes it (RFC 9111
        /// section 4.3.1). The entity tag is preferred when there is one.
        case revalidate(etag: String?, lastModified: String?)
    }

    /// A request for `url`: Via and User-Agent always (RFC 9110 section 7.6.3), then the range,
    /// the condition, and any fields passed on from the client's request.
    /// `key` is the cache key a parent is chosen by (the URL's when nil).
    package func request(_ url: UpstreamURL, method: String = "GET", checkAddress: Bool, userAgent: String?,
                         range: RangeResponseCheck.Asked? = nil, condition: UpstreamCondition = .none,
                         passing fields: HTTPHeaders = HTTPHeaders(), key: String? = nil) -> UpstreamRequest {
        var req = UpstreamRequest(url: url)
        req.parentKey = key ?? url.description
        req.method = method
        req.refuseInternalAddresses = checkAddress
        req.headers.set("Via", via(appendingTo: fields.combined("Via")))
        req.headers.set("User-Agent", userAgent ?? "eddy/0.1")
        for (name, value) in fields where name.lowercased() != "via" { req.headers.set(name, value) }
        switch range {
        case let .span(first, last)?: req.headers.set("Range", "bytes=\(first)-\(last.map(String.init) ?? "")")
        case let .suffix(n)?: req.headers.set("Range", "bytes=-\(n)")
        case nil: break
        }
        switch condition {
        case .none: break
        case let .ifRange(validator): req.headers.set("If-Range", validator)
        case let .revalidate(etag, lastModified):
            if let etag { req.headers.set("If-None-Match", etag) } else if let lastModified { req.headers.set("If-Modified-Since", lastModified) }
        }
        return req
    }

    /// A transfer for `request` with the configured timeouts, counted as an upstream fetch when
    /// started (the caller starts it).
    package func transfer(for request: UpstreamRequest) -> UpstreamTransfer {
        var request = request
        let report = request.connectOnly ? nil : parents?.route(&request)
        let t = UpstreamTransfer(multi: curl, request: request, timeouts: timeouts)
        t.parentOutcome = report
        return t
    }

    /// `Via` for a response: the upstream's Via list, then eddy.
    package func via(appendingTo upstream: String?) -> String {
        guard let upstream, !upstream.isEmpty else { return via }
        return upstream + ", " + via
    }
}
