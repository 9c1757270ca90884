import CLibevent
import EddyCore
import Glibc

/// Accepts HTTP/1.1 connections on one `EventLoop` for eddy's own connection layer
/// (`WireConnection`), in place of evhttp's. See `WireConnection` for what it does yet.
public final class WireServer {
    let loop: EventLoop
    private var listener: OpaquePointer?
    private var live: [ObjectIdentifier: WireConnection] = [:]
    private let limits: RequestHeadParser.Limits
    /// Receives each request on the loop thread.
    public var handler: (WireRequest) -> Void = { _ in }
    /// The port bound.
    public private(set) var boundPort = 0
    /// Open connections.
    public var openConnections: Int { live.count }
    /// Requests handed to `handler`.
    public internal(set) var requestsAccepted = 0

    /// Binds `host:port` (a numeric address) and starts accepting.
    public init(loop: EventLoop, host: String, port: Int, limits: RequestHeadParser.Limits = .init()) throws {
        self.loop = loop
        self.limits = limits
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            throw HTTPServerError(description: "cannot resolve \(host)")
        }
        defer { freeaddrinfo(list) }
        let flags = UInt32(LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC)
        listener = evconnlistener_new_bind(loop.base, { _, fd, address, _, arg in
            Unmanaged<WireServer>.fromOpaque(arg!).takeUnretainedValue().accepted(fd, address)
        }, Unmanaged.passUnretained(self).toOpaque(), flags, -1, first.pointee.ai_addr, Int32(first.pointee.ai_addrlen))
        guard let listener else { throw HTTPServerError(description: "cannot listen on \(host):\(port): \(String(cString: strerror(errno)))") }
        boundPort = HTTPServer.localPort(evconnlistener_get_fd(listener)) ?? port
    }

    deinit {
        if let listener { evconnlistener_free(listener) }
        for c in live.values { c.close(notify: false) }
    }

    private func accepted(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?) {
        // Responses are written whole at once; Nagle's algorithm would hold a response's tail
        // for the client's delayed ACK.
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let c = WireConnection(fd: fd, peer: WireServer.describe(address), server: self, limits: limits)
        live[ObjectIdentifier(c)] = c
    }

    func forget(_ c: WireConnection) { live[ObjectIdentifier(c)] = nil }

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

    /// A peer's address as text, without its port (as evhttp gives it).
    static func describe(_ address: UnsafeMutablePointer<sockaddr>?) -> String {
        guard let address else { return "-" }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            var a = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            inet_ntop(AF_INET, &a, &text, socklen_t(text.count))
        case AF_INET6:
            var a = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            inet_ntop(AF_INET6, &a, &text, socklen_t(text.count))
        default:
            return "-"
        }
        return String(cString: text)
    }
}
