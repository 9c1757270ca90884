import EddyCore
import EddyResources

extension Home {
    /// What a loop's serving side is configured with, from the proxy's configuration (a reload
    /// changes some of it on each home, on its loop).
    package struct Settings {
        /// The proxy's name, for Via and Cache-Status.
        package var name: String
        package var freshness: FreshnessPolicy
        /// Whether keys (EXT-X-KEY URLs) are cached (`cache_keys`).
        package var cacheKeys: Bool
        /// Seconds a request for a download's copy waits on the origin before it is answered from disk.
        package var offlineWait: Double
        /// Whether Forwarded/X-Forwarded-For are sent upstream.
        package var forwardedHeaders: Bool
        package var trustedProxies: Set<String>
        /// Whether 1xx interim heads (103 Early Hints) are forwarded.
        package var earlyHints: Bool
        /// What the loop's resources are built from.
        package var resources: ResourceHome.Settings
        /// The edges this node is a parent of (`children:`).
        package var children: [AddressRange] = []

        package init(name: String, freshness: FreshnessPolicy, cacheKeys: Bool, offlineWait: Double, forwardedHeaders: Bool,
                     trustedProxies: Set<String>, earlyHints: Bool, resources: ResourceHome.Settings) {
            (self.name, self.freshness, self.cacheKeys, self.offlineWait) = (name, freshness, cacheKeys, offlineWait)
            (self.forwardedHeaders, self.trustedProxies, self.earlyHints) = (forwardedHeaders, trustedProxies, earlyHints)
            self.resources = resources
        }
    }

    /// What downloads hold for offline playback, as the serving side reads it (the download
    /// engine publishes it), and where their offline URLs live.
    package struct OfflineHoldings {
        /// The rendition URLs downloads of a multivariant playlist hold whole; nil when none is of it.
        package let completeRenditions: (UpstreamURL) -> Set<String>?
        /// The recording a download made of a live media playlist, if any.
        package let recordedPlaylist: (UpstreamURL) -> String?
        /// The path prefix of downloads' offline URLs on the proxy listener (answered by `offlineAnswer`).
        package let prefix: String

        package init(completeRenditions: @escaping (UpstreamURL) -> Set<String>?, recordedPlaylist: @escaping (UpstreamURL) -> String?,
                     prefix: String) {
            (self.completeRenditions, self.recordedPlaylist, self.prefix) = (completeRenditions, recordedPlaylist, prefix)
        }
    }

    /// Takes reloaded settings, on this home's loop, after the requests it has begun. What a
    /// reload may change: the gate, freshness, forwarding, early hints, key caching, variants and
    /// prefetch (offline_wait and the memory tier change only with a restart).
    package func reload(_ s: Settings, gate: UpstreamGate) {
        resources.reload(s.resources, gate: gate)
        services.freshness = s.freshness
        services.loopServices.forwardClientAddress = s.forwardedHeaders
        services.loopServices.trustedProxies = s.trustedProxies
        services.loopServices.earlyHints = s.earlyHints
        cacheKeys = s.cacheKeys
        children = s.children
    }
}
