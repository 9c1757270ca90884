import CCurl
import EddyCore
import Glibc

/// One upstream HTTP exchange on a `CurlMulti`, reporting head, body bytes and completion through
/// closures on the loop thread.
///
/// Settings are those a cache needs: no automatic decompression (the cache stores the origin's
/// bytes), no environment proxies, no redirects followed (the client sees them), TLS verification
/// on, HTTP/2 over TLS when offered, a connect timeout and a stall timeout instead of a total one
/// (a large body may legitimately take hours).
public final class UpstreamTransfer {
    let easy: UnsafeMutableRawPointer
    unowned let multi: CurlMulti
    /// The request as sent, less its body: curl keeps its own copy of that (`COPYPOSTFIELDS`).
    public let request: UpstreamRequest
    /// Receives the final response head (1xx heads are skipped). Return false to abort.
    public var onHead: ((UpstreamHead) -> Bool)?
    /// Receives each interim head (1xx other than 100 Continue, which curl answers itself, and
    /// 101): a proxy forwards them (RFC 9110 section 15.2), e.g. 103 Early Hints (RFC 8297).
    public var onInterim: ((UpstreamHead) -> Void)?
    /// Receives body bytes. Return `.accept`, `.pause` (call `resume()` later) or `.abort`.
    public var onData: ((UnsafeRawBufferPointer) -> DataDisposition)?
    /// Called once at the end: nil on success.
    public var onComplete: ((UpstreamError?) -> Void)?
    /// Told once whether the parent the request went to served (true) or failed for its own
    /// reasons (false: no connection, no answer, or a 503); set by whoever chose the parent.
    public var parentOutcome: ((Bool) -> Void)?
    /// Body bytes received so far (the "bytes the origin sent" figure).
    public internal(set) var bodyBytes = 0
    private var headerList: UnsafeMutablePointer<curl_slist>?
    var pendingHead = HTTPHeaders()
    var pendingStatus = 0
    var pendingVersion = ""
    var headDelivered = false
    var cancelled = false
    var blockedAddress = false
    /// Set when the gate refused the URL: the transfer never reaches curl and ends with `.refused`.
    private(set) var refusal: String?
    private var cStrings: [UnsafeMutablePointer<CChar>] = []

    /// What the body callback wants done with a chunk.
    public enum DataDisposition { case accept, pause, abort }

    /// Timeouts, seconds.
    public struct Timeouts: Sendable {
        /// CA bundle to verify origins with, instead of the system's (for private CAs and tests).
        public var caFile: String?
        public var connect: Int = 10
        /// Abort when fewer than 1 byte/s arrive for this long.
        public var stall: Int = 30
        public init() {}
    }

    /// Seconds the transfer may wait for a connection (a free slot, DNS, TCP, TLS) before its
    /// request goes out; enforced by `CurlMulti`, since curl does not count the wait for a slot.
    let connectTimeout: Double
    /// When `start()` was called (monotonic seconds).
    var startedAt = 0.0
    /// True once the final response head arrived.
    var hasHead: Bool { headDelivered }

    public init(multi: CurlMulti, request: UpstreamRequest, timeouts: Timeouts = Timeouts()) {
        self.multi = multi
        // A whole body is held by the client's request and by curl already; not a third time here.
        var kept = request
        kept.body = nil
        self.request = kept
        connectTimeout = Double(timeouts.connect)
        CurlLibrary.require()
        easy = eddy_curl_easy_init()
        let me = Unmanaged.passUnretained(self).toOpaque()
        // Through a parent: connect to it and send the origin's URL as the request-target
        // (absolute form, RFC 9112 section 3.2.2), as a forward proxy receives it, with the
        // origin's Host. Not curl's proxy support: it would tunnel https:// URLs with CONNECT,
        // and a parent cache must see what it caches.
        let parent = request.connectOnly ? nil : request.parent
        setString(CURLOPT_URL, parent?.description ?? request.url.description)
        if parent != nil { setString(CURLOPT_REQUEST_TARGET, request.url.description) }
        setString(CURLOPT_PROXY, "")
        eddy_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        eddy_curl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        // Waiting for a connection that might multiplex only makes sense where HTTP/2 can be
        // negotiated (TLS). Over plain HTTP it parked every later transfer to the host behind a
        // first one that never finished (a trickling origin held the next request indefinitely).
        if (parent ?? request.url).scheme == "https" { eddy_curl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1) }
        eddy_curl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)
        eddy_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT, timeouts.connect)
        eddy_curl_easy_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, 1)
        eddy_curl_easy_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, timeouts.stall)
        eddy_curl_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, 256 << 10)
        eddy_curl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 1)
        eddy_curl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 2)
        if let ca = timeouts.caFile { setString(CURLOPT_CAINFO, ca) }
        eddy_curl_easy_setopt_long(easy, CURLOPT_PROTOCOLS, Int(CURLPROTO_HTTP | CURLPROTO_HTTPS))
        if request.method == "HEAD" { eddy_curl_easy_setopt_long(easy, CURLOPT_NOBODY, 1) }
        if request.connectOnly {
            // A new connection every time, never one from the pool: the opensocket check below
            // then always runs, and the socket is the tunnel's alone (curl never lends a
            // connect-only connection to another transfer). Not FORBID_REUSE: that closes the
            // connection when the transfer is done, before its socket can be taken.
            eddy_curl_easy_setopt_long(easy, CURLOPT_CONNECT_ONLY, 1)
            eddy_curl_easy_setopt_long(easy, CURLOPT_FRESH_CONNECT, 1)
        }
        if let body = request.body {
            // curl copies the body; the size first, so bytes of value 0 are not taken for its end.
            eddy_curl_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            body.withUnsafeBytes { _ = eddy_curl_easy_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1)) }
        }
        if let stream = request.bodyStream { sendBody(from: stream) }
        let hasBody = request.body != nil || request.bodyStream != nil
        if request.method != "GET" && request.method != "HEAD" && !(request.method == "POST" && hasBody) {
            setString(CURLOPT_CUSTOMREQUEST, request.method)
        }
        eddy_curl_easy_setopt_ptr(easy, CURLOPT_PRIVATE, me)
        eddy_curl_easy_setopt_write(easy) { ptr, size, n, ud in
            let t = Unmanaged<UpstreamTransfer>.fromOpaque(ud!).takeUnretainedValue()
            return t.received(UnsafeRawBufferPointer(start: ptr, count: size * n))
        }
        eddy_curl_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, me)
        eddy_curl_easy_setopt_header(easy) { ptr, size, n, ud in
            let t = Unmanaged<UpstreamTransfer>.fromOpaque(ud!).takeUnretainedValue()
            return t.headerLine(UnsafeRawBufferPointer(start: ptr, count: size * n)) ? size * n : 0
        }
        eddy_curl_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, me)
        // Every transfer passes the multi's gate, whoever created it (RFC-agnostic SSRF defence:
        // prefetch, revalidation and resumed fills are checked exactly like a client's request).
        var refuseInternal = request.refuseInternalAddresses
        switch multi.gate?.check(request.url) {
        case let .allow(checkAddress)?: refuseInternal = refuseInternal || checkAddress
        case let .refuse(reason)?: refusal = reason
        case nil: break
        }
        if let why = request.unavailable { refusal = why }
        // The parent is named in the config, so allowed by name wherever it is; it applies the
        // address policy to the origin in turn.
        if parent != nil { refuseInternal = false }
        if refuseInternal {
            eddy_curl_easy_setopt_opensocket(easy) { clientp, purpose, addr in
                let t = Unmanaged<UpstreamTransfer>.fromOpaque(clientp!).takeUnretainedValue()
                return t.openSocket(addr!)
            }
            eddy_curl_easy_setopt_ptr(easy, CURLOPT_OPENSOCKETDATA, me)
            // opensocket runs only for new connections; a reused one (opened for a mapped origin
            // that is allowed to be internal) would skip it. The pre-request callback sees the
            // address of whichever connection the request goes out on.
            eddy_curl_easy_setopt_prereq(easy) { clientp, primaryIP, _, _, _ in
                let t = Unmanaged<UpstreamTransfer>.fromOpaque(clientp!).takeUnretainedValue()
                return t.connectionAllowed(primaryIP.map { String(cString: $0) }) ? 0 : 1 // CURL_PREREQFUNC_OK / _ABORT
            }
            eddy_curl_easy_setopt_ptr(easy, CURLOPT_PREREQDATA, me)
        }
        if parent != nil && request.headers["Host"] == nil { headerList = eddy_curl_slist_append(headerList, "Host: \(request.url.authority)") }
        for (name, value) in request.headers {
            // The value's bytes as the client sent them (`FieldText`), not its UTF-8.
            var line = Array(name.utf8) + [UInt8(ascii: ":"), UInt8(ascii: " ")] + FieldText.encode(value) + [0]
            headerList = line.withUnsafeMutableBytes { eddy_curl_slist_append(headerList, $0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
        }
        // curl adds "Accept: */*" on its own; an empty value suppresses it so the origin sees only
        // what the client or eddy chose.
        if request.headers["Accept"] == nil { headerList = eddy_curl_slist_append(headerList, "Accept:") }
        if hasBody {
            // Nor its own Content-Type for a body, nor an Expect: 100-continue round trip.
            if request.headers["Content-Type"] == nil { headerList = eddy_curl_slist_append(headerList, "Content-Type:") }
            headerList = eddy_curl_slist_append(headerList, "Expect:")
        }
        eddy_curl_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, headerList)
    }

    deinit {
        request.bodyStream?.abandon() // a client still sending is no longer held back for this transfer
        if connectedSocket >= 0 { Glibc.close(connectedSocket) }
        eddy_curl_easy_cleanup(easy)
        eddy_curl_slist_free_all(headerList)
        for p in cStrings { free(p) }
    }

    private func setString(_ opt: CURLoption, _ value: String) {
        let p = strdup(value)!
        cStrings.append(p)
        eddy_curl_easy_setopt_ptr(easy, opt, p)
    }

    /// Starts the transfer.
    public func start() {
        startedAt = EventLoop.monotonic()
        multi.start(self)
    }

    /// True once curl has a connection for this transfer and is about to send the request
    /// (CURLINFO_PRETRANSFER_TIME is set then, also on a reused connection).
    /// True once curl began to connect (the name was looked up, which an address takes at once);
    /// false while the transfer waits in the multi's own queue for a connection slot.
    var connectionStarted: Bool {
        var t: curl_off_t = 0
        eddy_curl_easy_getinfo_off(easy, CURLINFO_NAMELOOKUP_TIME_T, &t)
        return t > 0
    }

    var requestSent: Bool {
        var t: curl_off_t = 0
        eddy_curl_easy_getinfo_off(easy, CURLINFO_PRETRANSFER_TIME_T, &t)
        return t > 0
    }

    /// Seconds from the start to the connection's establishment (TCP, and TLS where used), when
    /// the transfer opened a new connection; nil on a reused one.
    var newConnectionSeconds: Double? {
        var n = 0
        eddy_curl_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &n)
        guard n > 0 else { return nil }
        var tcp: curl_off_t = 0, tls: curl_off_t = 0
        eddy_curl_easy_getinfo_off(easy, CURLINFO_CONNECT_TIME_T, &tcp)
        eddy_curl_easy_getinfo_off(easy, CURLINFO_APPCONNECT_TIME_T, &tls)
        return Double(max(tcp, tls)) / 1_000_000
    }

    /// Stops the transfer; `onComplete` is not called afterwards.
    public func cancel() {
        guard !cancelled else { return }
        cancelled = true
        parentOutcome = nil
        onHead = nil
        onInterim = nil
        onData = nil
        onComplete = nil
        multi.cancel(self)
    }

    /// Resumes after `.pause`.
    public func resume() { if !cancelled { multi.resume(self) } }

    /// A duplicate of a connect-only transfer's socket, made before curl closes its own.
    private var connectedSocket: Int32 = -1

    /// Called by `CurlMulti` when curl reports the transfer done, before the handle leaves the
    /// multi: removing a CONNECT_ONLY handle closes its connection, so the socket is duplicated
    /// first. curl unregisters its descriptor (CURL_POLL_REMOVE) before closing it, so the
    /// duplicate carries no stale event registration.
    func willRemove(code: CURLcode) {
        guard request.connectOnly, code == CURLE_OK, connectedSocket < 0 else { return }
        var fd = eddy_CURL_SOCKET_BAD
        if eddy_curl_easy_getinfo_socket(easy, CURLINFO_ACTIVESOCKET, &fd) == CURLE_OK, fd != eddy_CURL_SOCKET_BAD {
            connectedSocket = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        }
    }

    /// The connected socket of a successful connect-only transfer, once; the caller owns it.
    public func takeSocket() -> Int32? {
        guard connectedSocket >= 0 else { return nil }
        defer { connectedSocket = -1 }
        return connectedSocket
    }

    /// The IP address curl connected to, for logs.
    public var remoteAddress: String? {
        var p: UnsafeMutablePointer<CChar>? = nil
        eddy_curl_easy_getinfo_str(easy, CURLINFO_PRIMARY_IP, &p)
        return p.map { String(cString: $0) }
    }

    /// Set when the head named a transfer coding eddy can not decode.
    var unsupportedCoding: String?
    /// Set when the head framed its body two ways (`ResponseFraming`).
    var badFraming: String?
}
