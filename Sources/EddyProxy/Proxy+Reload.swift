import EddyCache
import EddyCore
import EddyLoop
import EddyResources
import EddyTLS
import Glibc

/// SIGHUP: the configuration is read again and what can change in a running eddy is applied on
/// the loop thread, between two events: origins and allowed hosts (the routing every fetch and
/// the upstream gate use), freshness and TTLs, client limits, `max_size`, the log level,
/// forwarded headers and trusted proxies, `max_variants`, `prefetch_segments`, `cache_keys`,
/// `download_window` and `download_rate_limit`.
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
        // What changes only with a restart keeps its running value (in `config`, read elsewhere), and
        // a warning names it: one list, compared and kept in one step.
        // Certificates first: a file that does not load refuses the whole reload, as a config that
        // does not parse does.
        let certificates: TLSCertificates?
        do { certificates = try reloadTLS(new) } catch {
            return logger.error("configuration reload refused; the running configuration stays", metadata: ["error": "\(error)"])
        }
        var applied = new
        var restartOnly: [String] = []
        func keep<T: Equatable>(_ name: String, _ field: WritableKeyPath<ProxyConfig, T>) {
            guard applied[keyPath: field] != config[keyPath: field] else { return }
            if !restartOnly.contains(name) { restartOnly.append(name) }
            applied[keyPath: field] = config[keyPath: field]
        }
        keep("listen", \.listenHost)
        keep("listen", \.listenPort)
        keep("cache_dir", \.cacheDir)
        keep("tls_listen", \.tlsListens)
        if new.admin?.host != config.admin?.host || new.admin?.port != config.admin?.port {
            restartOnly.append("admin")
            applied.admin = config.admin
        }
        keep("admin_token", \.adminToken)
        keep("admin_hosts", \.adminHosts)
        keep("access_log", \.accessLog)
        keep("access_log", \.accessLogFormat)
        keep("log_format", \.logFormat)
        keep("memory_cache", \.memoryCache)
        keep("max_upstream_per_host", \.maxUpstreamPerHost)
        keep("name", \.name)
        keep("parents", \.parents)
        keep("parent_go_direct", \.parentGoDirect)
        keep("connect_timeout, stall_timeout and ca_file", \.upstreamTimeouts.connect)
        keep("connect_timeout, stall_timeout and ca_file", \.upstreamTimeouts.stall)
        keep("connect_timeout, stall_timeout and ca_file", \.upstreamTimeouts.caFile)
        keep("allow_connect and connect_ports", \.allowConnect)
        keep("allow_connect and connect_ports", \.connectPorts)
        keep("allow_connect and connect_ports", \.connectIdleTimeout)
        keep("download_concurrency, max_parallel_downloads and download_retries", \.downloadConcurrency)
        keep("download_concurrency, max_parallel_downloads and download_retries", \.maxParallelDownloads)
        keep("download_concurrency, max_parallel_downloads and download_retries", \.downloadRetries)
        keep("workers", \.workers)
        keep("offline_wait", \.offlineWait)
        for name in restartOnly {
            logger.warning("\(name) changes only with a restart; the running value stays")
        }
        downloads?.engine.defaultWindow = new.downloadWindow
        downloads?.engine.setRateLimit(new.downloadRateLimit)
        resourceHomes.all[0].coordinators.players.enabled = new.downloadYield
        routing.resolver = TargetResolver(routes: new.routes, allowHosts: new.allowHosts, cacheKeys: new.cacheKeyRules, cookies: new.cookieRules)
        let gate = routing.resolver.gate
        let settings = new.homeSettings(loops: homes.count)
        // Each home takes the new settings on its loop, after the requests it has already begun.
        homes.runEverywhere { $0.reload(settings, gate: gate) }
        server.limits = new.limits
        for s in tlsServers { s.limits = new.limits }
        if let certificates {
            tlsContext?.replace(with: certificates)
            logger.info("TLS certificates reloaded", metadata: ["files": "\(new.tlsCertificates.map(\.cert).joined(separator: " "))"])
        }
        adminServer?.limits = new.limits.admin
        for w in workers { w.apply(limits: new.limits) }
        hitSnapshots?.removeAll() // routes and freshness may have changed
        if new.maxSize != store.maxSize {
            store.maxSize = new.maxSize // the stripes share it
            resourceHomes.runEverywhere { $0.store.enforceLimit() }
        }
        config = applied
        reloaded?(applied)
        logger.info("configuration reloaded", metadata: [
            "origins": "\(new.routes.map { "\($0.prefix)=\($0.base)" }.joined(separator: " "))",
            "allow_hosts": "\(new.allowHosts.count)", "max_size": "\(new.maxSize)", "log_level": "\(new.logLevel)",
        ])
    }
}
