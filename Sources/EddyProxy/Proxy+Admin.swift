import EddyAdmin
import EddyCache
import EddyCore
import EddyLoop
import EddyResources

/// The admin listener: the dashboard at `/`, health, readiness, Prometheus metrics, and the JSON
/// API (downloads, resources, fills, the dashboard's event stream, its OpenAPI document). Off
/// loopback it requires the bearer token (see `AdminAccess`); health, readiness and the static
/// files (the page, its script and style, the OpenAPI document: nothing secret) stay open, for
/// probes and for the page that then asks for the token.
extension Proxy {
    /// Paths that only read (GET and HEAD); `/api/events` is a stream (GET only).
    static let readOnlyPaths: Set<String> = ["/healthz", "/readyz", "/metrics", "/api/cache", "/api/fills", "/api/events"]

    /// Answers what the head alone refuses, before any body is read (`HTTPServer.vetHead`):
    /// the guard against pages in the user's browser, the bearer token, and a body larger than
    /// the operation takes. Returns true when it answered.
    func refusedAdmission(_ request: ServerRequest) -> Bool {
        // Before anything else: a page in the user's browser (DNS rebinding, a cross-site form)
        // gets nothing, and changes nothing (see `AdminRequestGuard`).
        let h = request.headers
        let declared = h["Content-Length"].flatMap { Int($0) }
        let hasBody = (declared ?? 0) > 0 || h["Transfer-Encoding"] != nil
        if case let .refuse(status, reason) = adminGuard.check(method: request.method, host: h["Host"], origin: h["Origin"],
                                                                fetchSite: h["Sec-Fetch-Site"], contentType: h["Content-Type"], hasBody: hasBody) {
            logger.warning("admin request refused", metadata: ["status": "\(status)", "reason": "\(reason)", "method": "\(request.method)",
                                                               "peer": "\(request.peer)"])
            AdminJSON.error(request, status, reason)
            return true
        }
        let path = String(request.uri.prefix { $0 != "?" })
        let open = path == "/healthz" || path == "/readyz" || EmbeddedFiles.byPath[path] != nil
        if !open, let token = config.adminToken, !token.isEmpty, !AdminAccess.allows(authorization: h["Authorization"], token: token) {
            var h = HTTPHeaders()
            h.set("WWW-Authenticate", "Bearer realm=\"eddy\"")
            h.set("Content-Type", "application/json")
            request.send(status: 401, headers: h, body: Array("{\"error\":\"a bearer token is required\"}\n".utf8))
            return true
        }
        let limit = Proxy.bodyLimit(method: request.method, path: path)
        if let declared, declared > limit {
            AdminJSON.error(request, 413, "a body of at most \(limit) bytes is taken here")
            return true
        }
        return false
    }

    /// The largest body an admin operation takes: a list of specs (`POST /api/downloads` may
    /// carry 1,000 of them) 8 MiB, any other JSON 1 MiB. Bodies without a declared length are
    /// bounded by the listener's own limit (`HTTPServerLimits.admin`).
    static func bodyLimit(method: String, path: String) -> Int {
        method == "POST" && path == "/api/downloads" ? HTTPServerLimits.adminListBytes : 1 << 20
    }

    func handleAdmin(_ request: ServerRequest) {
        if refusedAdmission(request) { return }
        let path = String(request.uri.prefix { $0 != "?" })
        let isStream = path == "/api/events"
        if Proxy.readOnlyPaths.contains(path) || EmbeddedFiles.byPath[path] != nil,
           !(request.method == "GET" || (request.method == "HEAD" && !isStream)) {
            return AdminJSON.methodNotAllowed(request, allow: ["GET"], stream: isStream)
        }
        switch path {
        case "/healthz":
            // Answered from the loop: an answer says the loop turns.
            return AdminJSON.send(request, 200, ["status": "ok"])
        case "/readyz":
            if draining { return AdminJSON.send(request, 503, ["status": "draining"]) }
            return AdminJSON.send(request, 200, ["status": "ready", "cache": store.isAvailable ? "ok" : "unavailable"])
        default: break
        }
        if let file = EmbeddedFiles.byPath[path] {
            var h = HTTPHeaders()
            h.set("Content-Type", file.type)
            h.set("Cache-Control", "no-cache")
            h.set("X-Content-Type-Options", "nosniff")
            // The page loads only its own script and style, and talks only to this listener; the
            // player's media comes from the proxy listener, as this browser reaches it: a
            // host-source without a scheme, which takes the page's own (CSP 3 section 6.7.2.8).
            var csp = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'"
            if path == "/play.html" { csp += "; media-src 'self' " + proxyURL(askedAt: request.headers["Host"]).dropFirst("http://".count) }
            h.set("Content-Security-Policy", csp)
            let etag = EmbeddedFileTags.byPath[path]
            if let etag { h.set("ETag", etag) }
            if case .notModified = Preconditions.evaluate(headers: request.headers, etag: etag, lastModified: nil) {
                h.remove("Content-Type")
                return request.send(status: 304, headers: h, body: [])
            }
            return request.send(status: 200, headers: h, body: request.method == "HEAD" ? [] : Array(file.text.utf8))
        }
        if path == "/metrics" { return sendMetrics(request) }
        if path == "/api/cache" {
            return AdminJSON.send(request, 200, CacheStatsInfo(cache: store, stats: requestStats.rolling, now: loop.wallClock(),
                                                               proxyURL: proxyURL(askedAt: request.headers["Host"])))
        }
        if isStream {
            return DashboardEvents(loop: loop, request: request) { [unowned self] in dashboardSnapshot(then: $0) }.start()
        }
        if path == "/api/fills" { return fillInfos { AdminJSON.send(request, 200, ["fills": $0]) } }
        if resourcesAPI.handle(request) { return }
        if path.hasPrefix("/api/") {
            guard let downloads else { return AdminJSON.error(request, 503, "downloads need a usable cache directory") }
            if downloads.handle(request) { return }
        }
        AdminJSON.error(request, 404, "the admin listener serves /api/, /metrics, /healthz and /readyz")
    }

    /// The fills in flight on every loop, each described on its home: by loop, then by id.
    private func fillInfos(then done: @escaping ([FillInfo]) -> Void) {
        let now = EventLoop.monotonic()
        resourceHomes.askAll({ h in h.coordinators.liveFills.values.sorted { $0.id < $1.id }.map { FillInfo($0, now: now) } },
                     then: { done($0.flatMap { $0 }) })
    }

    private func dashboardSnapshot(then done: @escaping (DashboardSnapshot) -> Void) {
        // Resources with a fill running come first, then the most recently used (each home's).
        let now = EventLoop.monotonic()
        resourceHomes.askAll({ h -> (filling: [ResourceInfo], recent: [ResourceInfo], fills: [FillInfo]) in
            (h.coordinators.liveFills.values.compactMap(\.resource).map(ResourceInfo.init), h.store.recentlyUsed(limit: 12).map(ResourceInfo.init),
             h.coordinators.liveFills.values.sorted { $0.id < $1.id }.map { FillInfo($0, now: now) })
        }, then: { [self] perHome in
            let recent = perHome.flatMap(\.recent).sorted { ($0.summary.lastAccess, $0.summary.key) > ($1.summary.lastAccess, $1.summary.key) }
            var seen = Set<String>(), busiest: [ResourceInfo] = []
            for r in perHome.flatMap(\.filling) + recent where seen.insert(r.summary.key).inserted && busiest.count < 8 { busiest.append(r) }
            done(DashboardSnapshot(cache: CacheStatsInfo(cache: store, stats: requestStats.rolling, now: loop.wallClock()),
                                   downloads: downloads.map { api in api.engine.jobs.map { api.engine.info($0) } } ?? [],
                                   resources: busiest, fills: perHome.flatMap(\.fills)))
        })
    }

    private func sendMetrics(_ request: ServerRequest) {
        loopMetrics { [self] loops in sendMetrics(request, perLoop: loops.map(\.metrics), memory: loops.map(\.memory).reduce(0, +)) }
    }

    private func sendMetrics(_ request: ServerRequest, perLoop: [Metrics], memory: Int) {
        let listener = listenerCounters
        let metrics = summed(perLoop)
        var text = metrics.render(gauges: [
            ("eddy_cache_bytes", "Confirmed bytes in the cache", store.totalBytes),
            ("eddy_cache_max_bytes", "Configured --max-size", store.maxSize),
            ("eddy_cache_pinned_bytes", "Confirmed bytes of pinned resources (downloads), never evicted", store.pinnedBytes),
            ("eddy_upstream_active", "Upstream transfers in flight", listener.upstreamActive),
            ("eddy_client_connections", "Open client connections", listener.openConnections),
            ("eddy_header_timeouts_total", "Connections closed for slow request headers", listener.headerTimeouts),
            ("eddy_connections_shed_total", "Idle connections closed when out of descriptors", listener.shed),
            ("eddy_accept_failures_total", "accept() failures for lack of descriptors", listener.acceptFailures),
            ("eddy_connections_handed_off_total", "Connections a loop accepted and gave to a loop holding fewer", listener.handedOff),
            ("eddy_event_loops", "Event loops serving clients (workers)", workers.count + 1),
            ("eddy_memory_cache_bytes", "Bytes of small bodies held in memory", memory),
            ("eddy_connect_active", "CONNECT tunnels open", metrics.tunnelsActive),
        ])
        // How the clients spread over the loops.
        text += "# HELP eddy_loop_requests_total Client requests each event loop accepted\n# TYPE eddy_loop_requests_total counter\n"
        let loops = loopCounters
        for (i, c) in loops.enumerated() { text += "eddy_loop_requests_total{loop=\"\(i)\"} \(c.requests)\n" }
        // How evenly the loops hold them (ConnectionBalance).
        text += "# HELP eddy_loop_client_connections Open client connections on each event loop\n# TYPE eddy_loop_client_connections gauge\n"
        for (i, c) in loops.enumerated() { text += "eddy_loop_client_connections{loop=\"\(i)\"} \(c.openConnections)\n" }
        // Where the origin is asked from: fills on the home loop, pass-through on any.
        text += "# HELP eddy_loop_upstream_fetches_total Upstream requests each event loop made\n# TYPE eddy_loop_upstream_fetches_total counter\n"
        for (i, n) in perLoop.map(\.upstreamFetches).enumerated() {
            text += "eddy_loop_upstream_fetches_total{loop=\"\(i)\"} \(n)\n"
        }
        var h = HTTPHeaders()
        h.set("Content-Type", "text/plain; version=0.0.4")
        h.set("Cache-Control", "no-store") // as every other admin answer: counters of this moment
        request.send(status: 200, headers: h, body: Array(text.utf8))
    }

    /// The proxy listener's base URL for a browser that reached the admin listener at `host`
    /// (its Host field): a wildcard listen address is reached by the name the browser used.
    func proxyURL(askedAt host: String?) -> String {
        SelfAuthority(host: config.listenHost, port: server.boundPort).baseURL(reachedAs: host.map(AdminRequestGuard.name(ofHost:)))
    }
}
