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
                if head.body == .none { return dispatch(request) }
                if head.expectsContinue && evbuffer_get_length(input) == 0 {
                    // RFC 9110 section 10.1.1: the client waits for this before it sends the body.
                    queue("HTTP/1.1 100 Continue\r\n\r\n")
                    flush()
                }
                switch head.body {
                case .none: return
                case let .length(n):
                    if let above = server.limits.streamBodiesAbove, n > above { return startUpload(request, remaining: n, decoder: nil) }
                    phase = .body(request, remaining: n, decoder: nil)
                case .chunked: phase = .body(request, remaining: nil, decoder: ChunkedBodyDecoder(limits: bodyLimits))
                }
                readBody()
            }
        }
    }

    private var bodyLimits: ChunkedBodyDecoder.Limits {
        var l = ChunkedBodyDecoder.Limits()
        l.maxBodyBytes = parser.limits.maxBodyBytes
        return l
    }

    /// Moves body bytes from the input into the request; hands it over once whole.
    private func readBody() {
        guard case .body(let request, var remaining, var decoder) = phase else { return }
        while evbuffer_get_length(input) > 0 {
            let count = evbuffer_get_length(input)
            let bytes = UnsafeRawBufferPointer(start: evbuffer_pullup(input, -1), count: count)
            if let left = remaining {
                let n = min(left, count)
                request.bodyBytes += bytes[0..<n]
                evbuffer_drain(input, n)
                remaining = left - n
                if remaining == 0 { return dispatch(request) }
                continue
            }
            guard var d = decoder else { return }
            let (event, consumed) = d.next(bytes)
            if case let .data(r) = event { request.bodyBytes += bytes[r] }
            evbuffer_drain(input, consumed)
            decoder = d
            switch event {
            case .data, .needMore:
                // A chunked body past the size read whole goes on as a stream (`startUpload`).
                if let above = server.limits.streamBodiesAbove, request.bodyBytes.count > above {
                    return startUpload(request, remaining: nil, decoder: d)
                }
                continue
            case .end: return dispatch(request)
            case let .invalid(reason, tooLarge): return refuse(tooLarge ? 413 : 400, reason)
            }
        }
        phase = .body(request, remaining: remaining, decoder: decoder)
    }

    /// Hands a request to the handler: whole, or with its body still arriving (`startUpload`).
    func dispatch(_ request: ServerRequest) {
        phase = .answering(request)
        headerStartedAt = nil
        requests += 1
        if !request.head.keepAlive { closeAfterResponse = true }
        server.accept(request, on: self)
    }
}
