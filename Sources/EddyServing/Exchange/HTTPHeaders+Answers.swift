import EddyCore

extension HTTPHeaders {
    /// Drops fields that describe a body, for 304/412/416 answers.
    func withoutBodyFields() -> HTTPHeaders {
        var h = self
        for n in ["Content-Length", "Content-Range", "Content-Encoding"] { h.remove(n) }
        return h
    }

    /// The fields of a 304: no representation metadata beyond the validators and the caching
    /// fields, as RFC 9110 section 15.4.5 asks (REDbot flags Content-Type there).
    func forNotModified() -> HTTPHeaders {
        var h = withoutBodyFields()
        for n in ["Content-Type", "Content-Language", "Accept-Ranges"] { h.remove(n) }
        return h
    }
}
