import EddyCore
import Glibc

/// Header fields kept as C strings as well, for responses that repeat them: every hit on a stored
/// resource version sends the same replayed fields. Handing evhttp ready C strings skips the
/// per-field String bridging that showed in the small-hit profile.
public final class HeaderBlock {
    /// The fields as Swift values, for paths that change them.
    public let headers: HTTPHeaders
    let cFields: [(name: UnsafeMutablePointer<CChar>, value: UnsafeMutablePointer<CChar>)]

    public init(_ headers: HTTPHeaders) {
        self.headers = headers
        cFields = headers.map { (strdup($0.name)!, strdup($0.value)!) }
    }

    deinit {
        for f in cFields {
            free(f.name)
            free(f.value)
        }
    }
}
