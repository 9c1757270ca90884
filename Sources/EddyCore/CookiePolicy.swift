/// What a cache fill does with a client's `Cookie` (`cookies:` in the config, per origin).
///
/// A fill is shared: whatever the first viewer's request carried shapes the bytes every later
/// viewer gets, and `Cookie` is not in the cache key. The default is CloudFront's: a fill carries
/// no cookies (pass-through requests still carry them all). An origin that needs some of them
/// (a CDN checking a signed cookie before it serves) names them (`forward`), or has requests
/// with cookies bypass the cache (`bypass`, Varnish's builtin policy).
public enum CookiePolicy: Equatable, Sendable {
    /// No cookie travels on a fill.
    case strip
    /// The cookies of these names travel on fills (compared exactly, as cookie names are,
    /// RFC 6265 section 5.4); nil forwards every cookie. The key does not hold them: the operator
    /// says the origin's answer does not depend on their values beyond letting the fetch through.
    case forward(Set<String>?)
    /// A request carrying `Cookie` passes through uncached, and gets no stored answer.
    case bypass

    /// The `Cookie` value a fill sends for a client's `value`, or nil for none.
    public func fillValue(_ value: String?) -> String? {
        guard let value else { return nil }
        switch self {
        case .strip, .bypass: return nil
        case .forward(nil): return value
        case let .forward(names?):
            // cookie-string = cookie-pair *( ";" SP cookie-pair ), RFC 6265 section 4.2.1.
            let kept = value.split(separator: ";").filter { pair in
                let name = pair.prefix { $0 != "=" }.trimmingOWS()
                return names.contains(String(name))
            }.map { String($0.trimmingOWS()) }
            return kept.isEmpty ? nil : kept.joined(separator: "; ")
        }
    }
}
