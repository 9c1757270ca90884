import EddyLoop

/// A loop's listener and upstream counters, as its worker last published them (for /metrics and
/// the drain, which run on the main loop).
struct WorkerCounters {
    var openConnections = 0
    var headerTimeouts = 0
    var shed = 0
    var acceptFailures = 0
    /// Connections accepted here and handed to a loop holding fewer.
    var handedOff = 0
    var repliesInFlight = 0
    var requests = 0
    /// Upstream transfers in flight on the loop's own curl multi handle.
    var upstreamActive = 0
    /// Responses the loop runs itself (pass-through) still in flight.
    var exchanges = 0

    /// The counters of `server`; call on its loop.
    init(_ server: HTTPServer) {
        openConnections = server.openConnections
        headerTimeouts = server.headerTimeouts
        shed = server.shed
        acceptFailures = server.acceptFailures
        handedOff = server.handedOff
        repliesInFlight = server.repliesInFlight
        requests = server.requestsAccepted
    }

    init() {}
}
