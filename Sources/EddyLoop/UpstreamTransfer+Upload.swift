import CCurl
import EddyCore

extension UpstreamTransfer {
    /// Sends the request body as the client's connection delivers it: curl asks for bytes
    /// (CURLOPT_READFUNCTION); when none have arrived its sending side pauses, and the stream
    /// wakes this loop to resume it. A declared length goes as Content-Length, otherwise curl
    /// sends the body chunked (RFC 9112 section 7.1).
    ///
    /// Always on a new connection: bytes read from the stream are gone, so curl can not rewind
    /// the body to resend it, as it does when a pooled connection turns out to have been closed
    /// by the origin as the request went (a keep-alive race every origin's idle timeout makes;
    /// the client would get a 502). A handshake (a TLS one for https, and with HTTP/2 a
    /// connection the upload does not share) costs little against a body of more than 64 KiB;
    /// smaller bodies are held whole and may reuse a connection.
    func sendBody(from stream: RequestBodyStream) {
        eddy_curl_easy_setopt_long(easy, CURLOPT_FRESH_CONNECT, 1)
        eddy_curl_easy_setopt_long(easy, CURLOPT_POST, 1)
        eddy_curl_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(stream.length ?? -1))
        eddy_curl_easy_setopt_read(easy) { ptr, size, n, ud in
            let t = Unmanaged<UpstreamTransfer>.fromOpaque(ud!).takeUnretainedValue()
            return t.uploadBytes(into: UnsafeMutableRawBufferPointer(start: ptr, count: size * n))
        }
        eddy_curl_easy_setopt_ptr(easy, CURLOPT_READDATA, Unmanaged.passUnretained(self).toOpaque())
        // Posted, never called inside the connection's append: resuming may call straight back
        // into `uploadBytes` and on to the exchange.
        stream.onReadable(via: multi.loop.mailbox) { [weak self] in self?.resume() }
    }

    /// curl's read callback: bytes of the body, 0 at its end, or pause until more arrive.
    func uploadBytes(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard !cancelled, let stream = request.bodyStream else { return eddy_CURL_READFUNC_ABORT }
        switch stream.read(into: buffer) {
        case let .bytes(n): return n
        case .end: return 0
        case .wait: return eddy_CURL_READFUNC_PAUSE
        case .failed: return eddy_CURL_READFUNC_ABORT // the client left mid-body: the origin sees a cut request
        }
    }
}
