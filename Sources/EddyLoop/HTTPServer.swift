import CLibevent
import EddyCore
import Glibc

/// Errors from setting up a listener.
public struct HTTPServerError: Error, CustomStringConvertible {
    public let description: String
}

/// Serves HTTP/1.x clients with libevent's evhttp on one `EventLoop`.
///
/// Every request, of any method and any path, goes to `handler`; routing is the proxy's job.
/// Requests whose version or framing fields RFC 9112 says to refuse never reach it (see
/// `RequestFraming`). Connections are tracked from their creation (see `ClientConnection`).
public final class HTTPServer {
    private let http: OpaquePointer
    /// Receives each request on the loop thread. The handler owns the request until it ends it.
    public var handler: (ServerRequest) -> Void = { $0.sendError(503, "not ready") }
    /// Receives rare, rate-limited warnings (descriptor exhaustion) for the log.
    public var onWarning: ((String) -> Void)?
    /// The limits; setting them (a configuration reload) applies to new requests and connections.
    public var limits: HTTPServerLimits {
        didSet { applyLimits() }
    }
    /// Replies still being written: streamed ones, and ended ones whose bytes are still queued.
    public var repliesInFlight: Int { activeRequests.count + sending.count }
    /// Open client connections, including those that have not sent a request yet.
    public var openConnections: Int { connections.count }
    /// Requests accepted (handed to `handler` or refused here), for the per-loop counts.
    public internal(set) var requestsAccepted = 0
    /// Shared with the other loops' listeners on the same port, so that `limits.maxConnections`
    /// bounds them together; nil: this listener's own connections. Set by `ConnectionBudget.join`.
    var budget: ConnectionBudget?
    /// Connections closed because their request headers took longer than `limits.headerTimeout`.
    public internal(set) var headerTimeouts = 0
    /// Idle connections closed to make room when accept ran out of descriptors.
    public internal(set) var shed = 0
    /// accept() calls that failed for lack of descriptors or memory.
    public internal(set) var acceptFailures = 0
    /// Connections that have sent bytes, by evhttp connection (removed by evhttp's close callback,
    /// before the connection's memory can be reused).
    var connections: [OpaquePointer: ClientConnection] = [:]
    /// A descriptor held in reserve and closed when accept runs out, so the next accept succeeds.
    var reserveFD: Int32 = -1
    var lastAcceptWarning = -Double.infinity
    private var listener: OpaquePointer?
    private var sweepTimer: LoopTimer!
    var acceptPause: LoopTimer!
    /// Servers by their evhttp, for C callbacks that carry libevent's own argument. Shared by the
    /// worker loops' servers, hence the lock (taken per connection, not per request).
    private static let byHTTP = Locked<[UInt: Unmanaged<HTTPServer>]>([:])
    private static func registered(_ http: OpaquePointer) -> HTTPServer? {
        byHTTP.withLock { $0[UInt(bitPattern: UnsafeRawPointer(http))] }?.takeUnretainedValue()
    }
    /// The server that owns an evhttp connection.
    static func server(of evcon: OpaquePointer) -> HTTPServer? {
        evhttp_connection_get_server(evcon).flatMap { registered($0) }
    }
    /// The port actually bound (differs from the one asked for when that was 0).
    public private(set) var boundPort = 0

    private func applyLimits() {
        evhttp_set_max_headers_size(http, limits.maxHeaderBytes)
        evhttp_set_max_body_size(http, limits.maxBodyBytes)
        evhttp_set_timeout(http, Int32(limits.idleTimeout))
    }

    /// Binds `host:port` (IPv4 or IPv6 literal or name) and starts accepting on `loop`.
    /// `sharing`: with several loops, every loop binds a listener of its own on the same port
    /// with SO_REUSEPORT and the kernel spreads new connections over them (no accept thundering
    /// herd, no hand-off between threads). The group's first listener checks that the port is free
    /// first, so that a second eddy started on a port in use fails instead of silently taking a
    /// share of its connections (SO_REUSEPORT alone would let it join).
    public init(loop: EventLoop, host: String, port: Int, limits: HTTPServerLimits, sharing: PortSharing = .exclusive) throws {
        guard let h = evhttp_new(loop.base) else { throw HTTPServerError(description: "evhttp_new failed") }
        http = h
        self.limits = limits
        applyLimits()
        // No invented Content-Type on responses that have none (evhttp would add text/html; ISO-8859-1).
        evhttp_set_default_content_type(h, nil)
        // Accept every method so eddy answers 405 itself with a reason (evhttp would answer 501).
        let all = EVHTTP_REQ_GET.rawValue | EVHTTP_REQ_POST.rawValue | EVHTTP_REQ_HEAD.rawValue | EVHTTP_REQ_PUT.rawValue
            | EVHTTP_REQ_DELETE.rawValue | EVHTTP_REQ_OPTIONS.rawValue | EVHTTP_REQ_TRACE.rawValue
            | EVHTTP_REQ_CONNECT.rawValue | EVHTTP_REQ_PATCH.rawValue | HTTPServer.unknownMethodBit
        evhttp_set_allowed_methods(h, UInt16(all))
        let me = Unmanaged.passUnretained(self).toOpaque()
        evhttp_set_gencb(h, { req, arg in
            guard let req, let arg else { return }
            Unmanaged<HTTPServer>.fromOpaque(arg).takeUnretainedValue().accept(req)
        }, me)
        evhttp_set_bevcb(h, { base, arg in
            Unmanaged<HTTPServer>.fromOpaque(arg!).takeUnretainedValue().makeBufferevent(base: base)
        }, me)
        let bound: OpaquePointer?
        switch sharing {
        case .exclusive: bound = evhttp_bind_socket_with_handle(h, host, UInt16(port))
        case .first: bound = HTTPServer.bindShared(h, loop: loop, host: host, port: port, claim: true)
        case .join: bound = HTTPServer.bindShared(h, loop: loop, host: host, port: port, claim: false)
        }
        guard let bound else {
            let why = String(cString: strerror(errno))
            // Not freed here: every stored property has its value by now, so a throw runs deinit,
            // which frees the evhttp (freeing it here too was a double free when a port was in use).
            throw HTTPServerError(description: "cannot listen on \(host):\(port): \(why)")
        }
        listener = bound
        boundPort = HTTPServer.localPort(evhttp_bound_socket_get_fd(bound)) ?? port
        HTTPServer.byHTTP.withLock { $0[UInt(bitPattern: UnsafeRawPointer(h))] = Unmanaged.passUnretained(self) }
        if let lev = evhttp_bound_socket_get_listener(bound) {
            // libevent passes evhttp's own argument (the evhttp) to the error callback.
            evconnlistener_set_error_cb(lev) { lev, arg in
                let err = errno
                guard let lev, let arg, let server = HTTPServer.registered(OpaquePointer(arg)) else { return }
                server.acceptFailed(errno: err, listener: lev)
            }
        }
        reserveFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        sweepTimer = LoopTimer(loop: loop, repeating: true) { [unowned self] in sweepConnections() }
        sweepTimer.schedule(after: 1)
        acceptPause = LoopTimer(loop: loop) { [unowned self] in
            if let bound = listener, let lev = evhttp_bound_socket_get_listener(bound) { evconnlistener_enable(lev) }
        }
    }

    deinit {
        HTTPServer.byHTTP.withLock { $0[UInt(bitPattern: UnsafeRawPointer(http))] = nil }
        evhttp_free(http)
        if reserveFD >= 0 { close(reserveFD) }
    }

    private func accept(_ raw: OpaquePointer) {
        requestsAccepted += 1
        let request = ServerRequest(raw: raw, server: self)
        if evhttp_request_get_response_code(raw) == 413 {
            // evhttp stopped reading a body over the limit and hands the request over to be answered.
            _ = requestStarted(raw)
            request.sendError(413, "request body larger than max_body_size (\(limits.maxBodyBytes) bytes)", close: true)
            return
        }
        let connection = requestStarted(raw)
        if let connection, connection.requests == 1, let conn = evhttp_request_get_connection(raw) {
            if (budget?.count ?? connections.count) > limits.maxConnections {
                request.sendError(503, "too many connections", close: true)
                return
            }
            if let bev = evhttp_connection_get_bufferevent(conn) {
                // Responses end with a small write (see ServerRequest.writeFile); with Nagle's
                // algorithm it would wait for the client's delayed ACK, 40 ms per response.
                var one: Int32 = 1
                setsockopt(bufferevent_getfd(bev), Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                // libevent writes at most 16 KiB per writev by default, so a 16 KiB object and its
                // head took two system calls (seen with strace); allow whole small responses at once.
                bufferevent_set_max_single_write(bev, 256 << 10)
            }
            evhttp_connection_set_closecb(conn, { conn, arg in
                guard let conn, let arg else { return }
                Unmanaged<HTTPServer>.fromOpaque(arg).takeUnretainedValue().connectionClosed(conn)
            }, Unmanaged.passUnretained(self).toOpaque())
        }
        if let problem = RequestFraming.problem(major: request.versionMajor, minor: request.versionMinor, headers: request.headers,
                                             method: request.method) {
            // The framing is in doubt, so the rest of the connection's bytes can not be trusted.
            request.sendError(problem.status, problem.reason, close: true)
            return
        }
        if request.uri.utf8.count > limits.maxURILength {
            request.sendError(414, "request-target longer than \(limits.maxURILength) bytes")
            return
        }
        if request.method == "UNKNOWN" { return acceptExtension(request, connection: connection) }
        handler(request)
    }

    /// The per-connection close callback: forgets the connection and forwards to the request in
    /// flight, if any.
    func connectionClosed(_ conn: OpaquePointer) {
        connectionFreed(conn)
        if let active = activeRequests[conn] {
            activeRequests[conn] = nil
            active.connectionClosed()
        }
        if let draining = sending.removeValue(forKey: conn) { draining.sent() } // its buffer is freed with it
    }

    /// Ended replies still draining to their clients, by connection, kept until sent (see
    /// `ServerRequest.end(whenSent:)`).
    var sending: [OpaquePointer: ServerRequest] = [:]

    /// Requests that have started a streamed reply, by connection, so a close reaches them.
    var activeRequests: [OpaquePointer: ServerRequest] = [:]

    /// Stops accepting new connections (used when draining on SIGTERM).
    public func stopAccepting() {
        if let listener { evhttp_del_accept_socket(http, listener) }
        listener = nil
    }
}
