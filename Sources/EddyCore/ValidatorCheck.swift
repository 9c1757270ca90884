/// Whether the origin's current representation is the one stored, from its answer to a
/// conditional request for one byte (`If-None-Match` with the stored entity tag, else
/// `If-Modified-Since` with the stored Last-Modified; RFC 9110 sections 13.1.2 and 13.1.3, and
/// `Range: bytes=0-0`). A 304 says unchanged; an origin that ignores the condition answers 200 or
/// 206, and its validators decide. Pure: the download engine's refresh sends the request.
public struct ValidatorCheck: Equatable, Sendable {
    /// What is stored.
    public var etag: String?
    public var lastModified: String?
    public var length: Int?
    /// The stored media type, to tell a new version from a captive portal's page.
    public var contentType: String?

    public init(etag: String?, lastModified: String?, length: Int?, contentType: String? = nil) {
        (self.etag, self.lastModified, self.length, self.contentType) = (etag, lastModified, length, contentType)
    }

    public enum Verdict: Equatable, Sendable {
        case unchanged
        /// A new representation, of `length` bytes when the origin said.
        case changed(length: Int?)
        /// The answer says nothing of the representation (an error status, a redirect).
        case failed(status: Int)
        /// A success of another media type: a captive portal's page or an error page, not a
        /// new version of the file (a refresh must not replace a film with a login form).
        case otherType(String)
    }

    /// The condition to send: the entity tag when there is one (section 13.2.2 evaluates it
    /// first), else the date; nil when nothing stored can be compared.
    public var condition: (name: String, value: String)? {
        if let etag { return ("If-None-Match", etag) }
        if let lastModified { return ("If-Modified-Since", lastModified) }
        return nil
    }

    /// Judges the origin's answer.
    public func verdict(status: Int, headers: HTTPHeaders) -> Verdict {
        if status == 304 { return .unchanged }
        guard status == 200 || status == 206 else { return .failed(status: status) }
        if let stored = contentType.map(ValidatorCheck.essence), let now = headers["Content-Type"].map(ValidatorCheck.essence), stored != now {
            return .otherType(now)
        }
        let newLength: Int?
        if status == 206 {
            newLength = headers["Content-Range"].flatMap(ContentRange.parse)?.completeLength
        } else {
            newLength = headers["Content-Length"].flatMap { RangeHeader.parseDigits(Substring($0.trimmingOWS())) }
        }
        if let a = length, let b = newLength, a != b { return .changed(length: newLength) }
        let newETag = headers["ETag"], newDate = headers["Last-Modified"]
        // Strong comparison (section 8.8.3.2): a weak tag proves nothing of the bytes.
        if let a = etag.flatMap(EntityTag.parse), let b = newETag.flatMap(EntityTag.parse) {
            return a.strongMatches(b) ? .unchanged : .changed(length: newLength)
        }
        if etag != nil || newETag != nil { return .changed(length: newLength) }
        if let a = lastModified, let b = newDate { return a == b ? .unchanged : .changed(length: newLength) }
        // No validator on either side: nothing shows a change but the length, compared above.
        return lastModified == nil && newDate == nil && length != nil && newLength != nil ? .unchanged : .changed(length: newLength)
    }

    /// A media type without its parameters, lowercased (RFC 9110 section 8.3.1).
    static func essence(_ type: String) -> String {
        String(type.split(separator: ";", maxSplits: 1).first.map { $0.trimmingOWS() } ?? "").lowercased()
    }
}
