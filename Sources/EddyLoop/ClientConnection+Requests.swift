import CLibevent
import EddyCore
import Glibc

extension ClientConnection {
    /// Takes the next request out of the input: its head, then its body; unless one is being
    /// answered, when pipelined bytes wait (and reading stops past a head's worth of them).
    func process() {
        guard !closed else { return }
        switch phase {
        case .answering:
            if upload != nil { return pumpUpload() }
            if evbuffer_get_length(input) > parser.limits.maxHeadBytes { pauseReading(true) }
        case .body:
            readBody()
        case .head:
            let count = evbuffer_get_length(input)
            guard count > 0 else { return }
            switch parser.parse(UnsafeRawBufferPointer(start: evbuffer_pullup(input, -1), count: count)) {
            case .incomplete:
                return
            case let .invalid(status, reason):
                headerStartedAt = nil
                refuse(status, reason)
            case let .head(head, length):
                parser.reset()
                evbuffer_drain(input, length)
                let request = ServerRequest(connection: self, head: head)
                headerStartedAt = nil // the head is whole; a body's pace is the idle timeout's
                if case .none = head.body {} else if let vet = server.vetHead, !vetted(request, vet) { return }
                if head.expectsContinue && evbuffer_get_length(input) == 0 {
                    // RFC 9110 section 10.1.1: the client waits for this before it sends the body
                    // (`expectsContinue` is set only for a request with one).
                    queue("HTTP/1.1 100 Continue\r\n\r\n")
                    flush()
                }
                switch head.body {
                case .none: return dispatch(request)
                case let .length(n):
                    if let above = server.limits.streamBodiesAbove, n > above { return startUpload(request, remaining: n, decoder: nil) }
                    phase = .body(request, remaining: n, decoder: nil)
                case .chunked: phase = .body(request, remaining: nil, decoder: ChunkedBodyDecoder(limits: bodyLimits))
                }
                readBody()
            }
        }
    }

    /// Shows a head with a body to `vet` before a byte of the body is read; false when `vet`
    /// answered it: the connection then ends after that answer, the body never read (a refusal
    /// must not first make eddy take in megabytes nobody was allowed to send).
    private func vetted(_ request: ServerRequest, _ vet: (ServerRequest) -> Bool) -> Bool {
        phase = .answering(request)
        closeAfterResponse = true
        pauseReading(true)
        if vet(request) {
            closeAfterResponse = !request.head.keepAlive
            pauseReading(false)
            return true
        }
        lingerAfterResponse = true
        if !request.headSent { request.sendError(403, "refused", extra: HTTPHeaders(), close: true) }
        return false
    }

    private var bodyLimits: ChunkedBodyDecoder.Limits {
        var l = ChunkedBodyDecoder.Limits()
        l.maxBodyBytes = parser.limits.maxBodyBytes
        return l
    }

    /// Moves body bytes from the input into the request; hands it over once whole, or as a
    /// stream once a chunked body outgrows what is read whole (`startUpload`).
    private func readBody() {
        guard case .body(let request, var remaining, var decoder) = phase else { return }
        let above = server.limits.streamBodiesAbove ?? Int.max
        switch takeBody(remaining: &remaining, decoder: &decoder, into: { bytes in
            request.bodyBytes += bytes
            return request.bodyBytes.count <= above
        }) {
        case .needMore: phase = .body(request, remaining: remaining, decoder: decoder)
        case .stopped: startUpload(request, remaining: remaining, decoder: decoder)
        case .ended: dispatch(request)
        case let .invalid(status, reason): refuse(status, reason, method: request.method)
        }
    }

    /// How `takeBody` stopped.
    enum BodyProgress { case needMore, stopped, ended, invalid(Int, String) }

    /// Moves body bytes out of the input into `sink`, by length (`remaining`) or decoded from
    /// chunks (`decoder`), until the input is empty, the body ends, its framing breaks, or `sink`
    /// returns false (it takes no more for now). Both ways of reading a body, whole and
    /// streamed, go through here.
    func takeBody(remaining: inout Int?, decoder: inout ChunkedBodyDecoder?,
                  into sink: (UnsafeRawBufferPointer) -> Bool) -> BodyProgress {
        while evbuffer_get_length(input) > 0 {
            let count = evbuffer_get_length(input)
            let bytes = UnsafeRawBufferPointer(start: evbuffer_pullup(input, -1), count: count)
            if let left = remaining {
                let n = min(left, count)
                let more = sink(UnsafeRawBufferPointer(rebasing: bytes[0..<n]))
                evbuffer_drain(input, n)
                remaining = left - n
                if left == n { return .ended }
                if !more { return .stopped }
                continue
            }
            guard var d = decoder else { return .needMore }
            let (event, consumed) = d.next(bytes)
            let more = if case let .data(r) = event { sink(UnsafeRawBufferPointer(rebasing: bytes[r])) } else { true }
            evbuffer_drain(input, consumed)
            decoder = d
            switch event {
            case .data, .needMore: if !more { return .stopped }
            case .end: return .ended
            case let .invalid(reason, tooLarge): return .invalid(tooLarge ? 413 : 400, reason)
            }
        }
        return .needMore
    }

    /// Hands a request to the handler: whole, or with its body still arriving (`startUpload`).
    func dispatch(_ request: ServerRequest) {
        phase = .answering(request)
        headerStartedAt = nil
        requests += 1
        if !request.head.keepAlive { closeAfterResponse = true }
        server.accept(request, on: self)
    }

    /// Refuses what can not be read safely and closes after the answer: the framing is in doubt.
    /// `method`: the request's, when its head was read (a refused body); otherwise the head the
    /// parser refused still starts the input, and says whether it is a HEAD.
    func refuse(_ status: Int, _ reason: String, method: String? = nil) {
        pauseReading(true)
        // The answer to a HEAD has no body, even a refusal's (RFC 9110 section 9.3.2).
        let method = method ?? (inputStartsWithHEAD ? "HEAD" : "GET")
        let request = ServerRequest(connection: self, head: RequestHead(method: method, target: "*", keepAlive: false))
        phase = .answering(request)
        closeAfterResponse = true
        lingerAfterResponse = true
        request.sendError(status, reason, extra: HTTPHeaders(), close: true)
    }

    /// The input begins with `HEAD ` (a request line the parser refused).
    private var inputStartsWithHEAD: Bool {
        guard evbuffer_get_length(input) >= 5, let p = evbuffer_pullup(input, 5) else { return false }
        return Array(UnsafeRawBufferPointer(start: p, count: 5)) == Array("HEAD ".utf8)
    }
}
