import EddyCore

/// Counters exposed at /metrics in the Prometheus text format.
public final class Metrics {
    public var requests = 0
    public var hits = 0
    public var misses = 0
    public var partials = 0
    public var coalesced = 0
    /// Fills paused at `readahead` past every response's furthest byte (issue 58).
    public var readaheadPauses = 0
    public var bypasses = 0
    public var revalidations = 0
    public var validatorChanges = 0
    public var upstreamFetches = 0
    public var upstreamFailures = 0
    public var resumes = 0
    public var evictions = 0
    public var prefetches = 0
    public var bytesFromCache = 0
    public var bytesFromOrigin = 0
    public var memoryHits = 0
    /// Hits answered from `HitSnapshots`, without an exchange (on a worker or the main loop).
    public var snapshotHits = 0
    public var invalidations = 0
    /// Variants removed to keep a URL within `max_variants`.
    public var variantsRetired = 0
    /// CONNECT tunnels opened, refused (policy), failed (upstream connect), open now; bytes relayed.
    public var tunnelsOpened = 0, tunnelsRefused = 0, tunnelsFailed = 0, tunnelsActive = 0
    public var tunnelBytesUp = 0, tunnelBytesDown = 0
    /// Downloads found with fetches in flight and no progress for `stall_timeout` (restarted).
    public var downloadStalls = 0

    /// Per-minute requests, hits and bytes over the last 24 hours (the admin API's windows).
    public var rolling = RollingStats()
    /// Seconds from a request's arrival to its response head, by how the cache answered.
    public var firstByte: [String: Histogram] = ["hit": Histogram(), "miss": Histogram(), "partial": Histogram()]
    /// Seconds a fill ran (head to last byte, or failure), and seconds to connect to an origin (new connections).
    public var fillDuration = Histogram()
    public var upstreamConnect = Histogram()

    public init() {}

    /// Adds another loop's counters and fill and connect histograms. The per-minute windows and
    /// first-byte histograms are kept where requests are recorded (the main loop) and not added.
    public func add(_ o: Metrics) {
        requests += o.requests; hits += o.hits; misses += o.misses; partials += o.partials
        coalesced += o.coalesced; readaheadPauses += o.readaheadPauses; bypasses += o.bypasses; revalidations += o.revalidations
        validatorChanges += o.validatorChanges; upstreamFetches += o.upstreamFetches
        upstreamFailures += o.upstreamFailures; resumes += o.resumes; evictions += o.evictions
        prefetches += o.prefetches; bytesFromCache += o.bytesFromCache; bytesFromOrigin += o.bytesFromOrigin
        memoryHits += o.memoryHits; snapshotHits += o.snapshotHits; invalidations += o.invalidations
        variantsRetired += o.variantsRetired; downloadStalls += o.downloadStalls
        tunnelsOpened += o.tunnelsOpened; tunnelsRefused += o.tunnelsRefused; tunnelsFailed += o.tunnelsFailed
        tunnelsActive += o.tunnelsActive; tunnelBytesUp += o.tunnelBytesUp; tunnelBytesDown += o.tunnelBytesDown
        fillDuration.add(o.fillDuration)
        upstreamConnect.add(o.upstreamConnect)
    }

    /// A copy of the counters that `add` sums (for publishing a loop's counters to another thread).
    public func copy() -> Metrics {
        let m = Metrics()
        m.add(self)
        return m
    }

    /// The exposition text; `gauges` adds current values such as cache size.
    public func render(gauges: [(String, String, Int)]) -> String {
        let counters: [(String, String, Int)] = [
            ("eddy_requests_total", "Client requests", requests),
            ("eddy_cache_hits_total", "Responses served entirely from cache", hits),
            ("eddy_cache_misses_total", "Responses for resources not in cache", misses),
            ("eddy_cache_partial_total", "Responses partly served from cache", partials),
            ("eddy_coalesced_waits_total", "Requests that waited on another request's fetch", coalesced),
            ("eddy_readahead_pauses_total", "Times a fill paused at readahead past every response's furthest byte", readaheadPauses),
            ("eddy_bypass_total", "Responses passed through uncached", bypasses),
            ("eddy_revalidations_total", "Conditional requests sent for stale resources", revalidations),
            ("eddy_validator_changes_total", "Times the origin's representation changed under a stored one", validatorChanges),
            ("eddy_upstream_fetches_total", "Upstream requests", upstreamFetches),
            ("eddy_upstream_failures_total", "Upstream requests that failed", upstreamFailures),
            ("eddy_upstream_resumes_total", "Fetches restarted at the first missing byte after a failure", resumes),
            ("eddy_evictions_total", "Resources evicted", evictions),
            ("eddy_hls_prefetches_total", "HLS segments fetched ahead of players", prefetches),
            ("eddy_bytes_from_cache_total", "Body bytes served from cache", bytesFromCache),
            ("eddy_bytes_from_origin_total", "Body bytes received from origins", bytesFromOrigin),
            ("eddy_memory_hits_total", "Responses whose body was served from memory", memoryHits),
            ("eddy_snapshot_hits_total", "Plain small hits answered from the published snapshot, without an exchange", snapshotHits),
            ("eddy_invalidations_total", "Stored responses invalidated by unsafe requests (RFC 9111 section 4.4)", invalidations),
            ("eddy_variants_retired_total", "Stored variants removed to keep a URL within max_variants (RFC 9111 section 4.1)", variantsRetired),
            ("eddy_download_stalls_total", "Downloads that made no progress for stall_timeout with fetches in flight (restarted)", downloadStalls),
            ("eddy_connect_tunnels_total", "CONNECT tunnels opened", tunnelsOpened),
            ("eddy_connect_refused_total", "CONNECT requests refused by policy (allow_connect, connect_ports, --allow-host)", tunnelsRefused),
            ("eddy_connect_failures_total", "CONNECT requests whose target could not be reached", tunnelsFailed),
            ("eddy_connect_bytes_up_total", "Bytes relayed from clients to CONNECT targets (closed tunnels)", tunnelBytesUp),
            ("eddy_connect_bytes_down_total", "Bytes relayed from CONNECT targets to clients (closed tunnels)", tunnelBytesDown),
        ]
        var out = ""
        for (name, help, v) in counters { out += "# HELP \(name) \(help)\n# TYPE \(name) counter\n\(name) \(v)\n" }
        for (name, help, v) in gauges { out += "# HELP \(name) \(help)\n# TYPE \(name) gauge\n\(name) \(v)\n" }
        out += "# HELP eddy_first_byte_seconds Seconds from a request's arrival to its response head, by cache outcome\n"
        out += "# TYPE eddy_first_byte_seconds histogram\n"
        for kind in ["hit", "miss", "partial"] { out += firstByte[kind]!.render("eddy_first_byte_seconds", labels: "kind=\"\(kind)\"") }
        out += "# HELP eddy_fill_duration_seconds Seconds an upstream fill ran, from its start to its last byte or failure\n"
        out += "# TYPE eddy_fill_duration_seconds histogram\n" + fillDuration.render("eddy_fill_duration_seconds")
        out += "# HELP eddy_upstream_connect_seconds Seconds to connect to an origin (new connections only)\n"
        out += "# TYPE eddy_upstream_connect_seconds histogram\n" + upstreamConnect.render("eddy_upstream_connect_seconds")
        return out
    }
}
