import CLibevent
import EddyCore
import Glibc

/// Extension methods: any token is a method (RFC 9110 section 9.1), e.g. M-SEARCH, and a proxy
/// passes them on. libevent 2.1 parses only the nine it knows; it hands any other over as
/// "unknown", without its name, and without reading its body (whose bytes it would then parse
/// as the next request). So eddy reads the request line as it arrives (`peekRequestLine`: a
/// request starts the input buffer when the buffer was empty, as evhttp takes requests out
/// whole), takes the name only when the target it saw is the one evhttp parsed, and reads a
/// Content-Length body itself from the connection's input (`acceptExtension`). What it can not
/// name or frame gets 501 and the connection closes, so no byte of it is read as a request.
extension HTTPServer {
    /// libevent's EVHTTP_REQ_UNKNOWN_ (http-internal.h): allowed, so such requests reach eddy.
    static let unknownMethodBit: UInt32 = 1 << 15

    /// The nine methods evhttp parses, with the space that ends them.
    private static let known: [[UInt8]] = ["GET ", "HEAD ", "POST ", "PUT ", "DELETE ", "OPTIONS ", "TRACE ", "CONNECT ", "PATCH "]
        .map { Array($0.utf8) }

    /// New bytes begin a request on `c`: notes its method and target if the method is not one
    /// evhttp knows. Costs one 16-byte copy per request.
    func peekRequestLine(_ c: ClientConnection) {
        c.extensionLine = nil
        let input = bufferevent_get_input(c.bev)
        var head = [UInt8](repeating: 0, count: 16)
        let n = head.withUnsafeMutableBytes { Int(evbuffer_copyout(input, $0.baseAddress, 16)) }
        guard n > 0 else { return }
        if HTTPServer.known.contains(where: { $0.count <= n && head[..<$0.count].elementsEqual($0) }) { return }
        let available = Int(evbuffer_get_length(input))
        var line = [UInt8](repeating: 0, count: Swift.min(available, limits.maxURILength + 64))
        let got = line.withUnsafeMutableBytes { Int(evbuffer_copyout(input, $0.baseAddress, $0.count)) }
        guard got > 0 else { return }
        let bytes = line[..<got]
        guard let sp = bytes.firstIndex(of: 32), sp > 0, bytes[..<sp].allSatisfy(RequestFraming.isTokenChar),
              let end = bytes[(sp + 1)...].firstIndex(of: 32) else { return }
        c.extensionLine = (String(decoding: bytes[..<sp], as: UTF8.self), String(decoding: bytes[(sp + 1)..<end], as: UTF8.self))
    }

    /// A request evhttp could not name: names it from its line and reads its body, then hands it
    /// on; or refuses it and closes the connection.
    func acceptExtension(_ request: ServerRequest, connection c: ClientConnection?) {
        guard let c, let line = c.extensionLine, line.target == request.uri else {
            request.sendError(501, "unknown method (eddy could not read its name)", close: true)
            return
        }
        c.extensionLine = nil
        request.method = line.method
        if request.headers["Transfer-Encoding"] != nil {
            request.sendError(501, "a chunked body on the extension method \(line.method) is not supported", close: true)
            return
        }
        let length = request.headers["Content-Length"].flatMap { Int($0.split(separator: ",")[0].trimmingOWS()) } ?? 0
        if length > limits.maxBodyBytes {
            request.sendError(413, "request body larger than max_body_size (\(limits.maxBodyBytes) bytes)", close: true)
            return
        }
        // What has arrived is in the connection's input buffer; evhttp has stopped reading, and
        // enabling its reading now would run its read callback in a state it aborts the process
        // for. So the rest is read from the socket by an event of eddy's own, never more than the
        // body: what follows it is the next request's, left for evhttp.
        guard let body = evhttp_request_get_input_buffer(request.raw) else {
            return request.sendError(500, "no request body buffer", close: true)
        }
        let input = bufferevent_get_input(c.bev)
        let now = Swift.min(length, Int(evbuffer_get_length(input)))
        if now > 0 { evbuffer_remove_buffer(input, body, now) }
        if now == length { return handler(request) }
        c.pendingBody = (request, length - now, EventLoop.monotonic())
        let fd = bufferevent_getfd(c.bev)
        guard fd >= 0, let event = event_new(bufferevent_get_base(c.bev), fd, eddy_EV_READ | eddy_EV_PERSIST, { fd, _, arg in
            let c = Unmanaged<ClientConnection>.fromOpaque(arg!).takeUnretainedValue()
            guard let server = HTTPServer.server(of: c.evcon) else { return }
            server.bodyReadable(c, fd: fd)
        }, Unmanaged.passUnretained(c).toOpaque()) else {
            endBodyRead(c)
            return request.sendError(500, "could not read the request body", close: true)
        }
        c.bodyEvent = event
        event_add(event, nil)
    }

    /// Reads what the socket has of a waiting body, up to its end; hands the request on when whole.
    private func bodyReadable(_ c: ClientConnection, fd: Int32) {
        guard let (request, remaining, since) = c.pendingBody, let body = evhttp_request_get_input_buffer(request.raw) else { return }
        var chunk = [UInt8](repeating: 0, count: Swift.min(remaining, 64 << 10))
        let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if n < 0 && (errno == EAGAIN || errno == EINTR) { return }
        guard n > 0 else {
            endBodyRead(c)
            return request.sendError(400, "the request body ended early", close: true)
        }
        evbuffer_add(body, chunk, n)
        guard n == remaining else {
            c.pendingBody = (request, remaining - n, since)
            return
        }
        endBodyRead(c)
        handler(request)
    }

    /// Stops reading a body for `c` (done, failed, or the connection is going).
    func endBodyRead(_ c: ClientConnection) {
        if let e = c.bodyEvent { event_free(e) }
        c.bodyEvent = nil
        c.pendingBody = nil
    }

    /// From the sweep: a body that has not come within the header timeout gets 408.
    func expirePendingBody(_ c: ClientConnection, now: Double) {
        guard let (request, _, since) = c.pendingBody, now - since > Double(limits.headerTimeout) else { return }
        endBodyRead(c)
        request.sendError(408, "the request body did not arrive in time", close: true)
    }
}
