/// The `cookies:` rules: which `CookiePolicy` applies to an upstream URL, the first rule that
/// matches it winning, and `CookiePolicy.strip` when none does. Pure.
public struct CookieRules: Equatable, Sendable {
    /// One rule: the URLs it covers (`URLScope`) and their policy.
    public struct Rule: Equatable, Sendable {
        public let scope: URLScope
        public let policy: CookiePolicy

        public init(prefix: String? = nil, host: HostPattern? = nil, policy: CookiePolicy) {
            (self.scope, self.policy) = (URLScope(prefix: prefix, host: host), policy)
        }
    }

    /// The rules in the config's order.
    public let rules: [Rule]

    public init(_ rules: [Rule] = []) { self.rules = rules }

    /// The policy for fills of `url`.
    public func policy(for url: UpstreamURL) -> CookiePolicy {
        rules.first { $0.scope.matches(url) }?.policy ?? .strip
    }

    /// True when some rule bypasses the cache for requests with cookies: a published hit must
    /// then not answer such a request before its URL's rule is known.
    public var anyBypass: Bool { rules.contains { $0.policy == .bypass } }
}
