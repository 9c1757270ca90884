import EddyCore
import EddyLoop
import EddyResources

/// The responses one loop is answering. An exchange is referenced only from its callbacks
/// between them, so this table is what keeps it alive until it finishes; it is also what a drain
/// waits for. The exchanges every loop runs alike (pass-through and tunnels) start here, so the
/// main loop and the workers start them the same way. Touched only on its loop's thread.
package final class LoopResponses {
    private var active: [ObjectIdentifier: AnyObject] = [:]
    /// The loop's own counters.
    private let metrics: Metrics

    init(metrics: Metrics) {
        self.metrics = metrics
    }

    /// Responses in progress.
    package var count: Int { active.count }

    /// Keeps `exchange` (or the request itself, until an exchange takes it) until `finished`.
    func keep(_ exchange: AnyObject, for request: any ClientRequest) {
        active[ObjectIdentifier(request)] = exchange
    }

    /// The response to `request` has ended: its exchange may go.
    func finished(_ request: any ClientRequest) {
        active[ObjectIdentifier(request)] = nil
    }

    /// Relays the request to the origin and its response back, storing nothing (`DirectExchange`).
    func passThrough(_ request: any ClientRequest, services: LoopServices, url: UpstreamURL, form: RequestForm,
                     checkAddress: Bool, reason: String) {
        metrics.bypasses += 1
        let direct = DirectExchange(services: services, request: request, url: url, form: form, checkAddress: checkAddress,
                                    reason: reason)
        keep(direct, for: request)
        direct.begin()
    }

    /// A CONNECT tunnel: it takes over the connection's socket, so it runs on the connection's loop.
    func tunnel(_ request: ServerRequest, services: LoopServices, policy: ConnectExchange.Policy) {
        let tunnel = ConnectExchange(services: services, request: request, policy: policy)
        keep(tunnel, for: request)
        tunnel.begin()
    }

    /// Closes the open tunnels (a drain): they may stay open for hours, so they do not hold it.
    package func closeTunnels() {
        for case let c as ConnectExchange in active.values { c.tunnel?.finish("shutting down") }
    }

    /// Drops every response (the loop is going away).
    package func removeAll() {
        active.removeAll()
    }
}
