import EddyCore
import EddyLoop

/// A CONNECT request (RFC 9110 section 9.3.6): a blind TCP tunnel, so a player configured with
/// `https_proxy` keeps working through eddy, uncached. Off unless `allow_connect` is set; the
/// target must be admitted by `--allow-host` and use one of `connect_ports` (443 by default: a
/// tunnel to any port would make eddy a relay for mail or SSH). The upstream connection is made
/// by curl (CONNECT_ONLY), so it passes the same gate and address checks as every fetch. A tunnel
/// takes over its connection's socket, so it runs on the loop that took the connection.
package final class ConnectExchange {
    /// What the operator allows.
    package struct Policy {
        var enabled = false
        var ports: Set<Int> = [443]
        var idleTimeout = 300.0

        package init(enabled: Bool = false, ports: Set<Int> = [443], idleTimeout: Double = 300.0) {
            (self.enabled, self.ports, self.idleTimeout) = (enabled, ports, idleTimeout)
        }
    }

    private let services: LoopServices
    private let request: ServerRequest
    private let policy: Policy
    private let startedAt = EventLoop.monotonic()
    private var transfer: UpstreamTransfer?
    private var status = CacheStatus(forward: .method)
    private var done = false
    /// The relay, once the upstream connection is made.
    private(set) var tunnel: Tunnel?

    init(services: LoopServices, request: ServerRequest, policy: Policy) {
        self.services = services
        self.request = request
        self.policy = policy
        status.detail = "connect"
    }

    func begin() {
        let metrics = services.metrics
        guard policy.enabled else {
            return refuse(405, "CONNECT tunnels are off (set allow_connect: true)")
        }
        guard let target = ConnectTarget.parse(request.uri) else {
            return refuse(400, "CONNECT needs an authority-form target, host:port")
        }
        guard policy.ports.contains(target.port) else {
            return refuse(403, "CONNECT to port \(target.port) is not allowed (connect_ports: \(policy.ports.sorted()))")
        }
        var req = UpstreamRequest(url: target.url)
        req.connectOnly = true
        switch services.routing.resolver.gate.checkAllowList(target.url) {
        case let .refuse(reason): return refuse(403, reason)
        case let .allow(checkAddress): req.refuseInternalAddresses = checkAddress
        }
        let t = services.upstream.transfer(for: req)
        transfer = t
        request.watchClose()
        request.onClose = { [weak self] in self?.clientGone() }
        t.onComplete = { error in self.connected(error) }
        metrics.upstreamFetches += 1
        t.start()
    }

    private func refuse(_ code: Int, _ reason: String) {
        services.metrics.tunnelsRefused += 1
        request.sendError(code, reason, extra: code == 405 ? ExchangeServices.allowHeader : HTTPHeaders(), close: true)
        finish()
    }

    private func connected(_ error: UpstreamError?) {
        guard !done else { return }
        let socket = transfer?.takeSocket()
        transfer = nil
        guard error == nil, let socket else {
            services.metrics.tunnelsFailed += 1
            services.metrics.upstreamFailures += 1
            let (code, reason) = ConnectExchange.failure(error)
            request.unwatchClose()
            // Closed after the answer: bytes the client sent behind its CONNECT were meant for the
            // tunnel and must not be read as a request.
            request.sendError(code, reason, close: true)
            return finish()
        }
        guard let tunnel = Tunnel(request: request, originSocket: socket, loop: services.loop, idleTimeout: policy.idleTimeout) else {
            return finish()
        }
        services.metrics.tunnelsOpened += 1
        services.metrics.tunnelsActive += 1
        self.tunnel = tunnel
        tunnel.onEnd = { [weak self] reason in self?.tunnelEnded(reason) }
    }

    /// The status and reason for a tunnel that could not be opened.
    static func failure(_ error: UpstreamError?) -> (Int, String) {
        switch error {
        case let .refused(reason)?: return (403, reason)
        case .internalAddress?: return (403, "the target resolved to a loopback, private or link-local address")
        case let .timeout(message)?: return (504, "connecting to the target timed out: \(message)")
        case let error?: return (502, "cannot connect to the target: \(error)")
        case nil: return (502, "cannot connect to the target")
        }
    }

    private func tunnelEnded(_ reason: String) {
        guard let tunnel else { return }
        let m = services.metrics
        m.tunnelsActive -= 1
        m.tunnelBytesUp += tunnel.bytesUp
        m.tunnelBytesDown += tunnel.bytesDown
        services.logger.debug("tunnel closed", metadata: ["target": "\(request.uri)", "reason": "\(reason)",
                                                          "up": "\(tunnel.bytesUp)", "down": "\(tunnel.bytesDown)"])
        finish(fromOrigin: tunnel.bytesDown)
    }

    /// The client went away while the upstream connection was being made.
    private func clientGone() {
        guard tunnel == nil else { return }
        transfer?.cancel()
        transfer = nil
        finish()
    }

    private func finish(fromOrigin: Int = 0) {
        guard !done else { return }
        done = true
        services.finished(request, ExchangeOutcome(cacheStatus: status, fromCache: 0, fromOrigin: fromOrigin, startedAt: startedAt))
    }
}
