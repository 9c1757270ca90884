import EddyCache
import EddyCore
import EddyLoop
import Glibc

/// SIGHUP: the configuration is read again and what can change in a running eddy is applied on
/// the loop thread, between two events: origins and allowed hosts (the routing every fetch and
/// the upstream gate use), freshness and TTLs, client limits, `max_size`, the log level,
/// forwarded headers and trusted proxies, `max_variants`, `prefetch_segments` and `cache_keys`.
/// Connections stay open, responses in flight go on with what they resolved, and the cache is
/// kept. A configuration that does not parse or validate is refused whole, and the running one
/// stays. Listen and admin addresses, the cache directory, the token, the logs, the memory tier,
/// upstream connection settings, CONNECT and the download limits change only with a restart (a
/// warning names them).
extension Proxy {
    func reloadConfiguration() {
        guard let reloadConfig else {
            return logger.warning("SIGHUP: this eddy has no configuration to reload")
        }
        // systemd shows "reloading" until READY=1 again (sd_notify(3): RELOADING=1 with the time).
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        SystemdNotifier.notify("RELOADING=1\nMONOTONIC_USEC=\(Int(ts.tv_sec) * 1_000_000 + Int(ts.tv_nsec) / 1000)")
        defer { SystemdNotifier.notify("READY=1") }
        let new: ProxyConfig
        do { new = try reloadConfig() } catch {
            return logger.error("configuration reload refused; the running configuration stays", metadata: ["error": "\(error)"])
        }
        let fixed: [(String, Bool)] = [
            ("listen", new.listenHost == config.listenHost && new.listenPort == config.listenPort),
            ("cache_dir", new.cacheDir == config.cacheDir),
            ("admin", new.admin?.host == config.admin?.host && new.admin?.port == config.admin?.port),
            ("admin_token", new.adminToken == config.adminToken),
            ("access_log", new.accessLog == config.accessLog && new.accessLogFormat == config.accessLogFormat),
            ("log_format", new.logFormat == config.logFormat),
            ("memory_cache", new.memoryCache == config.memoryCache),
            ("max_upstream_per_host", new.maxUpstreamPerHost == config.maxUpstreamPerHost),
            ("connect_timeout and stall_timeout", new.upstreamTimeouts.connect == config.upstreamTimeouts.connect
                && new.upstreamTimeouts.stall == config.upstreamTimeouts.stall && new.upstreamTimeouts.caFile == config.upstreamTimeouts.caFile),
            ("allow_connect and connect_ports", new.allowConnect == config.allowConnect && new.connectPorts == config.connectPorts
                && new.connectIdleTimeout == config.connectIdleTimeout),
            ("download_concurrency, max_parallel_downloads and download_retries", new.downloadConcurrency == config.downloadConcurrency
                && new.maxParallelDownloads == config.maxParallelDownloads && new.downloadRetries == config.downloadRetries),
        ]
        for (name, same) in fixed where !same {
            logger.warning("\(name) changes only with a restart; the running value stays")
        }
        routing.resolver = TargetResolver(routes: new.routes, allowHosts: new.allowHosts)
        curl.gate = routing.resolver.gate
        services.freshness = new.freshness
        coordinators.targetedFields = new.freshness.targetedFields
        services.forwardClientAddress = new.forwardedHeaders
        services.trustedProxies = Set(new.trustedProxies)
        coordinators.maxVariants = new.maxVariants
        playlists.prefetchSegments = new.prefetchSegments
        server.limits = new.limits
        adminServer?.limits = new.limits
        if new.maxSize != store.maxSize {
            store.maxSize = new.maxSize
            store.enforceLimit()
        }
        // What changes only with a restart keeps its running value in `config` (read elsewhere).
        var applied = new
        (applied.listenHost, applied.listenPort, applied.cacheDir, applied.admin) = (config.listenHost, config.listenPort, config.cacheDir, config.admin)
        (applied.adminToken, applied.accessLog, applied.accessLogFormat, applied.logFormat) = (config.adminToken, config.accessLog, config.accessLogFormat, config.logFormat)
        (applied.memoryCache, applied.maxUpstreamPerHost, applied.upstreamTimeouts) = (config.memoryCache, config.maxUpstreamPerHost, config.upstreamTimeouts)
        (applied.allowConnect, applied.connectPorts, applied.connectIdleTimeout) = (config.allowConnect, config.connectPorts, config.connectIdleTimeout)
        (applied.downloadConcurrency, applied.maxParallelDownloads, applied.downloadRetries) = (config.downloadConcurrency, config.maxParallelDownloads, config.downloadRetries)
        config = applied
        reloaded?(applied)
        logger.info("configuration reloaded", metadata: [
            "origins": "\(new.routes.map { "\($0.prefix)=\($0.base)" }.joined(separator: " "))",
            "allow_hosts": "\(new.allowHosts.count)", "max_size": "\(new.maxSize)", "log_level": "\(new.logLevel)",
        ])
    }
}
