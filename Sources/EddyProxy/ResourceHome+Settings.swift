import EddyResources

extension ResourceHome.Settings {
    /// A home's resource settings from the proxy's: each of the `loops` homes keeps an equal
    /// share of the memory tier, for its own resources' bodies.
    init(_ config: ProxyConfig, loops: Int) {
        self.init(timeouts: config.upstreamTimeouts, maxPerHost: config.maxUpstreamPerHost, name: config.name,
                  targetedFields: config.freshness.targetedFields, maxVariants: config.maxVariants,
                  prefetchSegments: config.prefetchSegments, memoryBudget: config.memoryCache / loops)
    }
}
