import CLibevent
import EddyCore
import Glibc

extension ClientConnection {
    /// A request body passed on while it arrives (`HTTPServerLimits.streamBodiesAbove`): the
    /// request was handed over at once, and the bytes go into its `RequestBodyStream`.
    final class Upload {
        let stream: RequestBodyStream
        /// Bytes still to come of a Content-Length body; nil for a chunked one.
        var remaining: Int?
        var decoder: ChunkedBodyDecoder?
        /// The stream is full: the socket is not read until it has room again.
        var paused = false

        init(stream: RequestBodyStream, remaining: Int?, decoder: ChunkedBodyDecoder?) {
            (self.stream, self.remaining, self.decoder) = (stream, remaining, decoder)
        }
    }

    /// Hands `request` over with its body to come: what was read of it already goes first into
    /// the stream, and the rest follows as the client sends it and the consumer takes it.
    func startUpload(_ request: ServerRequest, remaining: Int?, decoder: ChunkedBodyDecoder?) {
        let stream = RequestBodyStream(length: remaining.map { $0 + request.bodyBytes.count })
        let u = Upload(stream: stream, remaining: remaining, decoder: decoder)
        if !request.bodyBytes.isEmpty {
            u.paused = request.bodyBytes.withUnsafeBytes { stream.append($0) }
            request.bodyBytes = []
        }
        stream.onSpace(via: server.loop.mailbox) { [weak self] in self?.uploadHasRoom() }
        request.bodyStream = stream
        upload = u
        dispatch(request)
        pumpUpload()
    }

    /// Moves what the input holds of the body into the stream, until it is full or the body ends.
    func pumpUpload() {
        guard !closed, let u = upload else { return }
        if u.paused { return pauseReading(true) } // full already (what was read whole went first)
        switch takeBody(remaining: &u.remaining, decoder: &u.decoder, into: { bytes in
            u.paused = u.stream.append(bytes)
            return !u.paused
        }) {
        case .needMore, .stopped: if u.paused { pauseReading(true) }
        case .ended: uploadEnded()
        case let .invalid(status, reason): uploadRefused(status, reason)
        }
    }

    /// The consumer took bytes out of a full stream (or gave it up): reading goes on.
    private func uploadHasRoom() {
        guard !closed, let u = upload, u.paused else { return }
        u.paused = false
        pauseReading(false)
        pumpUpload()
    }

    /// The whole body is in the stream; what follows in the input is the next request's.
    private func uploadEnded() {
        let u = upload
        upload = nil
        u?.stream.finish()
        process()
    }

    /// The body's framing broke mid-way: an error if no response has begun, else a cut connection.
    private func uploadRefused(_ status: Int, _ reason: String) {
        let u = upload
        upload = nil
        u?.stream.fail()
        pauseReading(true)
        guard case let .answering(r) = phase, !r.headSent, !r.isFinished else { return close() }
        closeAfterResponse = true
        r.sendError(status, reason, extra: HTTPHeaders(), close: true)
    }

    /// The connection goes with the body unfinished: the consumer sees a failure.
    func abandonUpload() {
        let u = upload
        upload = nil
        u?.stream.fail()
    }
}
