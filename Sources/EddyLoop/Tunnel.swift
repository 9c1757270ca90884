import CLibevent
import Glibc

/// A blind two-way byte relay between a client connection and an upstream socket: what a
/// CONNECT request asks for (RFC 9110 section 9.3.6). Nothing is parsed, stored or cached.
///
/// Flow control as in libevent's le-proxy: when one side's output holds `highWater` bytes, the
/// other side stops reading until it drains to half of that, so a slow reader never makes eddy
/// buffer more than about `highWater` per direction. An end of stream on one side is passed on
/// as a half close (shutdown for writing) once its bytes are delivered; the tunnel ends when both
/// directions have ended, on an error, or after `idleTimeout` seconds without a byte either way.
public final class Tunnel {
    /// Bytes relayed from the client to the origin, and from the origin to the client.
    public private(set) var bytesUp = 0, bytesDown = 0
    /// Called once when the tunnel ends, with a short reason ("closed", "idle", "client error"...).
    public var onEnd: ((String) -> Void)?
    /// Most bytes queued toward one side before the other stops reading.
    public static let highWater = 256 << 10

    private let request: ServerRequest
    private var client: OpaquePointer?
    private var origin: OpaquePointer?
    private var idleTimer: LoopTimer?
    private let idleTimeout: Double
    private var lastActivity = EventLoop.monotonic()
    /// End of stream read from the client / from the origin.
    private var clientDone = false, originDone = false
    /// Half close passed on toward the origin / toward the client.
    private var originShut = false, clientShut = false
    private var ended = false
    /// Held while the tunnel runs: libevent's callbacks carry an unretained pointer.
    private var keepAlive: Tunnel?

    /// Takes over `request`'s connection and `originSocket` (which the tunnel then owns), answers
    /// the client `200 Connection established`, and starts relaying. nil when the client has
    /// gone already (the socket is closed then).
    public init?(request: ServerRequest, originSocket: Int32, loop: EventLoop, idleTimeout: Double) {
        self.request = request
        self.idleTimeout = idleTimeout
        guard let origin = bufferevent_socket_new(loop.base, originSocket, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else {
            close(originSocket)
            return nil
        }
        self.origin = origin
        guard let fd = request.detachConnection(pendingInto: bufferevent_get_output(origin)),
              let client = bufferevent_socket_new(loop.base, fd, 0) else {
            bufferevent_free(origin)
            self.origin = nil
            return nil
        }
        self.client = client
        bytesUp = evbuffer_get_length(bufferevent_get_output(origin))
        // No Content-Length or Transfer-Encoding on a 2xx to CONNECT (RFC 9110 section 9.3.6).
        let head = "HTTP/1.1 200 Connection established\r\n\r\n"
        _ = head.withCString { evbuffer_add(bufferevent_get_output(client), $0, strlen($0)) }
        let me = Unmanaged.passUnretained(self).toOpaque()
        for bev in [client, origin] {
            bufferevent_setcb(bev, { bev, arg in Tunnel.from(arg).readable(bev!) },
                              { bev, arg in Tunnel.from(arg).drained(bev!) },
                              { bev, what, arg in Tunnel.from(arg).event(bev!, what) }, me)
            bufferevent_enable(bev, eddy_EV_READ | eddy_EV_WRITE)
        }
        keepAlive = self
        request.onClose = { [weak self] in self?.finish("client connection freed", release: false) }
        let timer = LoopTimer(loop: loop, repeating: true) { [weak self] in self?.checkIdle() }
        timer.schedule(after: min(idleTimeout, 5))
        idleTimer = timer
    }

    private static func from(_ arg: UnsafeMutableRawPointer?) -> Tunnel {
        Unmanaged<Tunnel>.fromOpaque(arg!).takeUnretainedValue()
    }

    private func partner(of bev: OpaquePointer) -> OpaquePointer? { bev == client ? origin : client }

    private func readable(_ bev: OpaquePointer) {
        guard let to = partner(of: bev) else { return }
        let input = bufferevent_get_input(bev)
        let n = evbuffer_get_length(input)
        if bev == client { bytesUp += n } else { bytesDown += n; request.bodyBytesSent = bytesDown }
        lastActivity = EventLoop.monotonic()
        let output = bufferevent_get_output(to)
        evbuffer_add_buffer(output, input)
        if evbuffer_get_length(output) >= Tunnel.highWater {
            // Stop reading this side until the other has taken half of what waits for it.
            bufferevent_disable(bev, eddy_EV_READ)
            bufferevent_setwatermark(to, eddy_EV_WRITE, Tunnel.highWater / 2, Tunnel.highWater)
        }
    }

    /// The write callback: `bev`'s output fell to its low watermark.
    private func drained(_ bev: OpaquePointer) {
        guard let from = partner(of: bev) else { return }
        let fromDone = bev == client ? originDone : clientDone
        if !fromDone && bufferevent_get_enabled(from) & eddy_EV_READ == 0 {
            bufferevent_setwatermark(bev, eddy_EV_WRITE, 0, 0)
            bufferevent_enable(from, eddy_EV_READ)
        }
        passHalfClose()
    }

    private func event(_ bev: OpaquePointer, _ what: Int16) {
        let side = bev == client ? "client" : "origin"
        if what & Int16(BEV_EVENT_EOF) != 0 {
            readable(bev) // bytes read together with the end of stream
            if bev == client { clientDone = true } else { originDone = true }
            bufferevent_disable(bev, eddy_EV_READ)
            passHalfClose()
            return
        }
        if what & Int16(BEV_EVENT_ERROR) != 0 {
            finish("\(side) error: \(String(cString: strerror(errno)))")
        }
    }

    /// Shuts a side down for writing once the other side's stream has ended and its bytes are
    /// delivered; ends the tunnel when both directions are over.
    private func passHalfClose() {
        if clientDone, !originShut, let origin, evbuffer_get_length(bufferevent_get_output(origin)) == 0 {
            originShut = true
            shutdown(bufferevent_getfd(origin), Int32(SHUT_WR))
        }
        if originDone, !clientShut, let client, evbuffer_get_length(bufferevent_get_output(client)) == 0 {
            clientShut = true
            shutdown(bufferevent_getfd(client), Int32(SHUT_WR))
        }
        if originShut && clientShut { finish("closed") }
    }

    private func checkIdle() {
        if EventLoop.monotonic() - lastActivity > idleTimeout { finish("idle for \(Int(idleTimeout)) s") }
    }

    /// Ends the tunnel: frees both sides and, unless evhttp is freeing it already, the client's
    /// connection.
    public func finish(_ reason: String, release: Bool = true) {
        guard !ended else { return }
        ended = true
        idleTimer?.cancel()
        if let client { bufferevent_free(client) }
        if let origin { bufferevent_free(origin) }
        client = nil
        origin = nil
        if release { request.releaseConnection() }
        let cb = onEnd
        onEnd = nil
        cb?(reason)
        keepAlive = nil
    }
}
