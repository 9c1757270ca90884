import EddyCache
import EddyCore
import EddyHLS

/// A stored playlist as rewritten for one request URL and form, kept by its resource's
/// coordinator for the responses after it. The viewers of a live channel ask for the same
/// playlist at the same moment (an LL-HLS part's held reload wakes them all at once, issue 62):
/// each used to read, check, parse and rewrite it again, and the last of 1,000 got it 0.4 s
/// after the first. Valid for one version and refresh of the resource (`matches`).
package struct RewrittenPlaylist {
    package let version: Int
    package let storedAt: Int
    package let url: UpstreamURL
    package let form: RequestForm
    package let kind: PlaylistKind
    package let body: [UInt8]

    package init(version: Int, storedAt: Int, url: UpstreamURL, form: RequestForm, kind: PlaylistKind, body: [UInt8]) {
        (self.version, self.storedAt, self.url, self.form, self.kind, self.body) = (version, storedAt, url, form, kind, body)
    }

    /// True when it was made from this version and refresh of the resource, for this URL and form.
    package func matches(_ r: CachedResource, url: UpstreamURL, form: RequestForm) -> Bool {
        version == r.version && storedAt == r.meta.storedAt && self.form == form && self.url == url
    }
}
