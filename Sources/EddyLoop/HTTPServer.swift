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
public final class HTTPServer {
    private let http: OpaquePointer
    /// Receives each request on the loop thread. The handler owns the request until it ends it.
    public var handler: (ServerRequest) -> Void = { $0.sendError(503, "not ready") }
    public let limits: HTTPServerLimits
    /// Connections that have carried a request and are still open.
    public private(set) var openConnections = 0
    private var knownConnections = Set<OpaquePointer>()
    private var listener: OpaquePointer?

    /// Binds `host:port` (IPv4 or IPv6 literal or name) and starts accepting on `loop`.
    public init(loop: EventLoop, host: String, port: Int, limits: HTTPServerLimits) throws {
        guard let h = evhttp_new(loop.base) else { throw HTTPServerError(description: "evhttp_new failed") }
        http = h
        self.limits = limits
        evhttp_set_max_headers_size(h, limits.maxHeaderBytes)
        evhttp_set_max_body_size(h, limits.maxBodyBytes)
        evhttp_set_timeout(h, Int32(limits.idleTimeout))
        // No invented Content-Type on responses that have none (evhttp would add text/html; ISO-8859-1).
        evhttp_set_default_content_type(h, nil)
        // Accept every method so eddy answers 405 itself with a reason (evhttp would answer 501).
        let all = EVHTTP_REQ_GET.rawValue | EVHTTP_REQ_POST.rawValue | EVHTTP_REQ_HEAD.rawValue | EVHTTP_REQ_PUT.rawValue
            | EVHTTP_REQ_DELETE.rawValue | EVHTTP_REQ_OPTIONS.rawValue | EVHTTP_REQ_TRACE.rawValue
            | EVHTTP_REQ_CONNECT.rawValue | EVHTTP_REQ_PATCH.rawValue
        evhttp_set_allowed_methods(h, UInt16(all))
        evhttp_set_gencb(h, { req, arg in
            guard let req, let arg else { return }
            Unmanaged<HTTPServer>.fromOpaque(arg).takeUnretainedValue().accept(req)
        }, Unmanaged.passUnretained(self).toOpaque())
        listener = evhttp_bind_socket_with_handle(h, host, UInt16(port))
        guard listener != nil else {
            evhttp_free(h)
            throw HTTPServerError(description: "cannot listen on \(host):\(port): \(String(cString: strerror(errno)))")
        }
    }

    deinit { evhttp_free(http) }

    private func accept(_ raw: OpaquePointer) {
        let request = ServerRequest(raw: raw, server: self)
        if let conn = evhttp_request_get_connection(raw), !knownConnections.contains(conn) {
            if openConnections >= limits.maxConnections {
                request.sendError(503, "too many connections", close: true)
                return
            }
            knownConnections.insert(conn)
            openConnections += 1
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
        if request.uri.utf8.count > limits.maxURILength {
            request.sendError(414, "request-target longer than \(limits.maxURILength) bytes")
            return
        }
        handler(request)
    }

    /// The per-connection close callback: forwards to the request in flight, if any.
    private func connectionClosed(_ conn: OpaquePointer) {
        if knownConnections.remove(conn) != nil { openConnections -= 1 }
        if let active = activeRequests[conn] {
            activeRequests[conn] = nil
            active.connectionClosed()
        }
    }

    /// Requests that have started a streamed reply, by connection, so a close reaches them.
    var activeRequests: [OpaquePointer: ServerRequest] = [:]

    /// Stops accepting new connections (used when draining on SIGTERM).
    public func stopAccepting() {
        if let listener { evhttp_del_accept_socket(http, listener) }
        listener = nil
    }
}
