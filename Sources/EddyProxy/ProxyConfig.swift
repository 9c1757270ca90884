import EddyCore
import EddyDownloads
import EddyLoop
import EddyResources
import EddyTLS

/// Everything `eddy serve` can be told, from flags or the config file.
public struct ProxyConfig: Sendable {
    public var listenHost = "127.0.0.1"
    public var listenPort = 8080
    /// TLS listeners, `HOST:PORT` each (`tls_listen`, `--tls-listen`); none by default.
    public var tlsListens: [ListenAddress] = []
    /// The TLS listeners' default certificate and key (`tls_cert`, `tls_key`).
    public var tlsCert: String?
    public var tlsKey: String?
    /// More certificates, chosen by SNI from their names (`tls_certificates`).
    public var tlsCertificateList: [TLSCertificateFiles] = []
    /// Every certificate a TLS listener presents, the default (`tls_cert`, else the list's first) first.
    public var tlsCertificates: [TLSCertificateFiles] {
        var all: [TLSCertificateFiles] = []
        if let tlsCert, let tlsKey { all.append(TLSCertificateFiles(cert: tlsCert, key: tlsKey)) }
        return all + tlsCertificateList
    }
    public var cacheDir = "./cache"
    /// Upper bound on cached bytes; 0 = unbounded.
    public var maxSize = 10 << 30
    public var routes: [OriginRoute] = []
    public var allowHosts: [HostPattern] = []
    /// File for the access log; "-" or nil means stderr, "off" disables it.
    public var accessLog: String? = "-"
    /// Freshness choices RFC 9111 leaves to the cache: default and heuristic lifetimes, negative
    /// caching, serving stale on errors, targeted fields (see `FreshnessPolicy`).
    public var freshness = FreshnessPolicy()
    /// Lifetime of responses with neither explicit freshness nor Last-Modified, seconds (0: none;
    /// a deliberate override when set).
    public var defaultTTL: Int {
        get { freshness.defaultLifetime }
        set { freshness.defaultLifetime = newValue }
    }
    public var limits = HTTPServerLimits()
    /// Send X-Forwarded-For and Forwarded (RFC 7239) upstream.
    public var forwardedHeaders = true
    /// Peer addresses whose incoming X-Forwarded-For and Forwarded are extended, not replaced.
    public var trustedProxies: [String] = []
    public var upstreamTimeouts = UpstreamTransfer.Timeouts()
    /// Connections per origin host.
    public var maxUpstreamPerHost = 16
    /// The pseudonym in Via and Cache-Status (`name`, `--name`); each node of a cluster needs its
    /// own, since a request whose Via already names this one is a loop (508).
    public var name = "eddy"
    /// The parent tier every upstream request goes through (`parents:`, `--parent`), chosen per
    /// cache key by rendezvous hash.
    public var parents: [UpstreamURL] = []
    /// With every parent down: ask the origin itself (true) or answer 502 (`parent_go_direct`).
    public var parentGoDirect = true
    /// The edges this node is a parent of (`children:`, addresses or CIDRs, `--child`).
    public var children: [AddressRange] = []
    /// The admin listener (dashboard, API, /metrics), nil when off (`admin: off`, `--no-admin`).
    /// On by default on loopback, as Syncthing's and Transmission's GUIs are, where the CLI looks.
    public var admin: (host: String, port: Int)? = ProxyConfig.defaultAdmin
    /// Where the admin listener is unless the config or a flag says otherwise.
    public static let defaultAdmin = (host: "127.0.0.1", port: 9090)
    /// The config or a flag chose `admin`: a port in use is then an error that stops the start.
    /// The default's port in use (another eddy on this machine) is a warning, and no listener.
    public var adminChosen = false
    /// Names the admin listener answers to besides loopback, IP literals and its own address
    /// (`admin_hosts`; see `AdminRequestGuard`).
    public var adminHosts: [String] = []
    /// Bearer token the admin listener requires (RFC 6750); required off loopback.
    public var adminToken: String?
    /// The access log's line format (`access_log_format`).
    public var accessLogFormat = AccessLog.Format.combined
    /// Diagnostics on stderr: `text` (swift-log's stream format) or `json` (one object per line).
    public var logFormat = "text"
    /// Media segments to prefetch after the one a player takes (0 = off).
    public var prefetchSegments = 3
    /// How far a response's fills run past the furthest byte it was sent (`readahead`,
    /// `--readahead`); nil (`off`): to the end of what was asked, as before issue 58.
    public var readahead: Int? = 16 << 20
    /// Variants stored per URL whose responses vary on request fields (RFC 9111 section 4.1).
    public var maxVariants = 8
    /// Store AES-128 keys in the cache (off: keys are always fetched from the origin).
    public var cacheKeys = false
    /// Memory for small complete bodies served without a disk read (0 = off). See `MemoryTier`.
    public var memoryCache = 32 << 20
    /// Forward an origin's interim heads (103 Early Hints) to HTTP/1.1 clients (`early_hints`).
    /// Off by default, as nginx's `early_hints` is: ffmpeg, mpv and Python's http.client take a
    /// 1xx head for the final answer over HTTP/1.1 and hang or fail (measured, see README).
    public var earlyHints = false
    /// CONNECT tunnels (RFC 9110 section 9.3.6): off by default.
    public var allowConnect = false
    /// Ports CONNECT may reach.
    public var connectPorts: [Int] = [443]
    /// Seconds without a byte either way before a tunnel is closed.
    public var connectIdleTimeout = 300
    /// Offline downloads: requests in flight per job, jobs at once, consecutive failures of one
    /// segment before its job fails.
    public var downloadConcurrency = 8
    public var maxParallelDownloads = 2
    public var downloadRetries = 10
    /// When downloads without their own `--window` run (`download_window`, local time); nil: any time.
    public var downloadWindow: DownloadWindow?
    /// Query parameters left out of cache keys (`cache_key:`); none by default.
    public var cacheKeyRules = CacheKeyRules()
    /// What fills do with clients' cookies (`cookies:`); stripped by default.
    public var cookieRules = CookieRules()
    /// Bytes a second for all downloads together (`download_rate_limit`, `--download-rate-limit`); 0: no limit.
    public var downloadRateLimit = 0
    /// Downloads yield to players fetching from the origin (`download_yield`; see `PlayerActivity`).
    public var downloadYield = true
    /// Seconds a request for a download's stored copy waits on an origin that does not answer
    /// before it is answered from disk (`offline_wait`); the origin is then marked unreachable.
    public var offlineWait = 1.5
    /// Event loops serving clients, one thread each (`workers`; 0: one per core). See `Proxy+Workers`.
    public var workers = 0
    /// Log level for diagnostics.
    public var logLevel = "info"

    public init() {}
}
