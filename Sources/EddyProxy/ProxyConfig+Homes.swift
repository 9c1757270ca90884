import EddyResources
import EddyServing

extension ProxyConfig {
    /// What each of the `loops` homes is built from: its serving side's settings, and its
    /// resources', which keep an equal share of the memory tier for their own bodies.
    func homeSettings(loops: Int) -> Home.Settings {
        var resources = ResourceHome.Settings(
            timeouts: upstreamTimeouts, maxPerHost: maxUpstreamPerHost, name: name, targetedFields: freshness.targetedFields,
            maxVariants: maxVariants, prefetchSegments: prefetchSegments, memoryBudget: memoryCache / loops)
        resources.readahead = readahead
        var s = Home.Settings(name: name, freshness: freshness, cacheKeys: cacheKeys, offlineWait: offlineWait,
                              forwardedHeaders: forwardedHeaders, trustedProxies: Set(trustedProxies), earlyHints: earlyHints,
                              resources: resources)
        s.children = children
        return s
    }
}
