import CCurl
import EddyCore
import Glibc

extension UpstreamTransfer {
    /// The first transfer coding other than a final `chunked` in a response head, if any.
    static func unsupportedCoding(_ head: HTTPHeaders) -> String? {
        var codings: [String] = []
        for v in head.values("Transfer-Encoding") {
            for c in v.split(separator: ",") {
                let t = c.trimmingOWS().lowercased()
                if !t.isEmpty { codings.append(t) }
            }
        }
        if codings.isEmpty || codings == ["chunked"] { return nil }
        return codings.first { $0 != "chunked" } ?? "chunked"
    }

    func headerLine(_ raw: UnsafeRawBufferPointer) -> Bool {
        if cancelled { return false }
        // Trim CR LF on bytes: in Swift "\r\n" is one Character, so hasSuffix("\n") misses it.
        var n = raw.count
        while n > 0 && (raw[n - 1] == 10 || raw[n - 1] == 13) { n -= 1 }
        let line = String(decoding: UnsafeRawBufferPointer(rebasing: raw[..<n]), as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            let parts = line.split(separator: " ", maxSplits: 2)
            pendingStatus = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            pendingVersion = String(parts.first ?? "")
            pendingHead = HTTPHeaders()
            return true
        }
        if line.isEmpty {
            // End of one head; 1xx heads (103 Early Hints, 100 Continue) are followed by the real one.
            if InterimHead.isForwarded(pendingStatus) && !headDelivered {
                onInterim?(UpstreamHead(status: pendingStatus, headers: pendingHead, version: pendingVersion))
                return true
            }
            if pendingStatus >= 200 && !headDelivered {
                headDelivered = true
                // A parent's own 503 (overloaded, draining) marks it down; any other answer,
                // even an origin's error it passes on, says it is up.
                reportParent(pendingStatus != 503)
                if let bad = UpstreamTransfer.unsupportedCoding(pendingHead) {
                    // curl decodes only chunked: any other transfer coding would reach the cache and
                    // the client as the coded bytes. Refused before any head goes out (RFC 9112
                    // section 6.1: a recipient that does not understand a coding answers 501/502).
                    unsupportedCoding = bad
                    return false
                }
                if let problem = ResponseFraming.problem(pendingHead) {
                    // Two lengths, or a length beside chunked: each hop could end the body
                    // elsewhere, and the rest would be read as the next response (RFC 9112
                    // section 6.3). Refused before anything goes out or is stored: a 502.
                    badFraming = problem
                    return false
                }
                if let n = ResponseFraming.length(pendingHead) { pendingHead.set("Content-Length", String(n)) } // "42, 42" is 42
                if let seconds = newConnectionSeconds { multi.onConnected?(seconds) }
                multi.noteTurnover(self)
                return onHead?(UpstreamHead(status: pendingStatus, headers: pendingHead, version: pendingVersion)) ?? false
            }
            return true
        }
        if let colon = line.firstIndex(of: ":") {
            pendingHead.add(String(line[..<colon]), String(line[line.index(after: colon)...].trimmingOWS()))
        }
        return true
    }

    /// Tells the parent's chooser once how the parent did.
    func reportParent(_ ok: Bool) {
        guard let report = parentOutcome else { return }
        parentOutcome = nil
        report(ok)
    }

    func received(_ bytes: UnsafeRawBufferPointer) -> Int {
        if cancelled { return 0 }
        bodyBytes += bytes.count
        switch onData?(bytes) ?? .abort {
        case .accept: return bytes.count
        case .pause:
            bodyBytes -= bytes.count // curl delivers the same bytes again on resume
            return eddy_CURL_WRITEFUNC_PAUSE
        case .abort: return 0
        }
    }

    func finished(code: CURLcode) {
        // No head: no connection or no answer. A refusal by the gate never reached the parent.
        if !cancelled && refusal == nil { reportParent(code == CURLE_OK) }
        guard !cancelled, let done = onComplete else { return }
        onComplete = nil
        onHead = nil
        onInterim = nil
        onData = nil
        if code == CURLE_OK { done(nil); return }
        if let refusal { done(.refused(refusal)); return }
        if let unsupportedCoding { done(.transfer("unsupported transfer coding '\(unsupportedCoding)'")); return }
        if let badFraming { done(.transfer("the origin's response is framed two ways: \(badFraming)")); return }
        let message = String(cString: eddy_curl_easy_strerror(code))
        if blockedAddress { done(.internalAddress); return }
        switch code {
        case CURLE_OPERATION_TIMEDOUT: done(.timeout(message))
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION:
            done(.connect(message))
        default: done(.transfer(message))
        }
    }
}
