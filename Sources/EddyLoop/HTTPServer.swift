import CLibevent
import EddyCore
import EddyTLS
import Glibc

/// Errors from setting up a listener.
public struct HTTPServerError: Error, CustomStringConvertible {
    public let description: String
}

/// Serves HTTP/1.x clients on one `EventLoop` with eddy's own connection layer
/// (`ClientConnection`): libevent's listener and events, eddy's parser (`RequestHeadParser`)
/// and writer (`ResponseHead`). It replaced evhttp (issue 33: two system calls per request
/// where evhttp made five, bench/RESULTS.md).
///
/// Every request, of any method and any path, goes to `handler`; routing is the proxy's job.
/// Requests whose version or framing RFC 9112 says to refuse never reach it.
public final class HTTPServer {
    /// The unsent bytes a client socket may hold beyond those in flight while it carries a large
    /// body (`ClientConnection.limitUnsent`).
    static let unsentLowWater: Int32 = 128 << 10
    /// Bodies from this length on are large: their sockets take at most `unsentLowWater` unsent.
    static let largeBody = 4 << 20
    /// Receives each request on the loop thread. The handler owns the request until it ends it.
    public var handler: (ServerRequest) -> Void = { $0.sendError(503, "not ready") }
    /// Sees the head of each request that has a body before the body is read, on the loop
    /// thread: returns true to read it and hand the request to `handler`, or false having
    /// answered it (the connection closes after that answer, the body unread). The admin
    /// listener checks its token and guard here.
    public var vetHead: ((ServerRequest) -> Bool)?
    /// Receives rare, rate-limited warnings (descriptor exhaustion) for the log.
    public var onWarning: ((String) -> Void)?
    /// The limits; setting them (a configuration reload) applies to new requests and connections.
    public var limits: HTTPServerLimits {
        didSet { parserLimits = HTTPServer.parserLimits(limits) }
    }
    private(set) var parserLimits: RequestHeadParser.Limits
    /// Replies still being written: requests handed over and not completely sent.
    public var repliesInFlight: Int { connections.values.reduce(0) { $0 + ($1.isAnswering ? 1 : 0) } }
    /// Open client connections, including those that have not sent a request yet.
    public var openConnections: Int { connections.count }
    /// Requests accepted (handed to `handler` or refused here), for the per-loop counts.
    public internal(set) var requestsAccepted = 0
    /// Shared with the other loops' listeners on the same port, so that `limits.maxConnections`
    /// bounds them together; nil: this listener's own connections. Set by `ConnectionBudget.join`.
    var budget: ConnectionBudget?
    /// This listener's place in `budget`'s counts.
    var budgetSlot = 0
    /// Connections this listener accepted and handed to a loop of its group holding fewer.
    public internal(set) var handedOff = 0
    /// Connections closed because their request headers took longer than `limits.headerTimeout`.
    public internal(set) var headerTimeouts = 0
    /// Idle connections closed to make room when accept ran out of descriptors.
    public internal(set) var shed = 0
    /// accept() calls that failed for lack of descriptors or memory.
    public internal(set) var acceptFailures = 0
    /// Set on a TLS listener: the certificates new connections are offered (`tls_listen`).
    public var tls: TLSServerContext?
    /// TLS connections closed because their handshake or a record failed (a plain-HTTP client on
    /// the TLS port, a version or cipher eddy does not offer, a broken record).
    public internal(set) var tlsFailures = 0
    /// Open connections.
    var connections: [ObjectIdentifier: ClientConnection] = [:]
    /// A descriptor held in reserve and closed when accept runs out, so the next accept succeeds.
    var reserveFD: Int32 = -1
    var lastAcceptWarning = -Double.infinity
    let loop: EventLoop
    private(set) var listener: OpaquePointer?
    private var sweepTimer: LoopTimer!
    var acceptPause: LoopTimer!
    /// The port actually bound (differs from the one asked for when that was 0).
    public private(set) var boundPort = 0

    /// What the parser enforces: the header block and the target as `limits` say (the window
    /// holds both, with room for the request line), and the body limit for Content-Length.
    static func parserLimits(_ limits: HTTPServerLimits) -> RequestHeadParser.Limits {
        var p = RequestHeadParser.Limits()
        p.maxHeadBytes = limits.maxHeaderBytes + limits.maxURILength + 1024
        p.maxTargetBytes = limits.maxURILength
        p.maxBodyBytes = limits.maxBodyBytes
        return p
    }

    /// Binds `host:port` (IPv4 or IPv6 literal or name) and starts accepting on `loop`.
    /// `sharing`: with several loops, every loop binds a listener of its own on the same port
    /// with SO_REUSEPORT and the kernel spreads new connections over them (no accept thundering
    /// herd, no hand-off between threads). The group's first listener checks that the port is free
    /// first, so that a second eddy started on a port in use fails instead of silently taking a
    /// share of its connections (SO_REUSEPORT alone would let it join).
    public init(loop: EventLoop, host: String, port: Int, limits: HTTPServerLimits, sharing: PortSharing = .exclusive) throws {
        self.loop = loop
        self.limits = limits
        parserLimits = HTTPServer.parserLimits(limits)
        let me = Unmanaged.passUnretained(self).toOpaque()
        let bound: OpaquePointer?
        switch sharing {
        case .exclusive: bound = HTTPServer.bind(loop: loop, host: host, port: port, reusePort: false, claim: false, arg: me)
        case .first: bound = HTTPServer.bind(loop: loop, host: host, port: port, reusePort: true, claim: true, arg: me)
        case .join: bound = HTTPServer.bind(loop: loop, host: host, port: port, reusePort: true, claim: false, arg: me)
        }
        guard let bound else {
            throw HTTPServerError(description: "cannot listen on \(host):\(port): \(String(cString: strerror(errno)))")
        }
        listener = bound
        boundPort = HTTPServer.localPort(evconnlistener_get_fd(bound)) ?? port
        evconnlistener_set_error_cb(bound) { lev, arg in
            let err = errno
            guard let lev, let arg else { return }
            Unmanaged<HTTPServer>.fromOpaque(arg).takeUnretainedValue().acceptFailed(errno: err, listener: lev)
        }
        reserveFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        sweepTimer = LoopTimer(loop: loop, repeating: true) { [unowned self] in sweepConnections() }
        sweepTimer.schedule(after: 1)
        acceptPause = LoopTimer(loop: loop) { [unowned self] in
            if let listener { evconnlistener_enable(listener) }
        }
    }

    deinit {
        if let listener { evconnlistener_free(listener) }
        for c in connections.values { c.close(notify: false) }
        if reserveFD >= 0 { close(reserveFD) }
    }

    /// A connection was accepted. In a group sharing the port it may go to a loop holding fewer
    /// connections (`ConnectionBalance`); otherwise its bytes are read here from now on.
    func accepted(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?) {
        let peer = HTTPServer.describe(address)
        if let budget, budget.handOff(fd, peer: peer, acceptedBy: self) {
            handedOff += 1
            return
        }
        adopt(fd, peer: peer)
    }

    /// Serves the accepted connection `fd` on this loop (already counted in `budget`, if any).
    func adopt(_ fd: Int32, peer: String) {
        // Responses are written whole at once; Nagle's algorithm would hold a response's tail
        // for the client's delayed ACK (40 ms per response).
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var channel: TLSChannel?
        if let tls {
            channel = TLSChannel(fd: fd, certificates: tls.certificates)
            guard channel != nil else {
                tlsFailures += 1
                close(fd)
                budget?.closed(budgetSlot)
                return
            }
        }
        let c = ClientConnection(fd: fd, peer: peer, server: self, limits: parserLimits, tls: channel)
        connections[ObjectIdentifier(c)] = c
    }

    /// The connection closed: it leaves the list (and the shared count).
    func forget(_ c: ClientConnection) {
        if connections.removeValue(forKey: ObjectIdentifier(c)) != nil { budget?.closed(budgetSlot) }
    }

    /// A whole request arrived on `connection`.
    func accept(_ request: ServerRequest, on connection: ClientConnection) {
        requestsAccepted += 1
        if connection.requests == 1 && (budget?.count ?? connections.count) > limits.maxConnections {
            return request.sendError(503, "too many connections", close: true)
        }
        if connection.tls != nil, request.method == "CONNECT" {
            // A tunnel would read the raw socket under this connection's TLS.
            return request.sendError(501, "CONNECT is not served on a TLS listener", close: true)
        }
        handler(request)
    }

    private var dateSecond = -1
    private var dateText = ""

    /// This second's Date value (RFC 9110 section 6.6.1), formatted once a second.
    var date: String {
        let now = loop.wallClock()
        if now != dateSecond {
            dateSecond = now
            dateText = HTTPDate.format(now)
        }
        return dateText
    }

    /// Stops accepting new connections (used when draining on SIGTERM).
    public func stopAccepting() {
        if let listener { evconnlistener_free(listener) }
        listener = nil
        budget?.retire(budgetSlot)
    }
}
