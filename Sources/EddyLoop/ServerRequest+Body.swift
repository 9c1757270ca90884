import CLibevent
import EddyCore
import Glibc

extension ServerRequest {
    /// Queues bytes (copied) and arms `onDrained`.
    public func write(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty, headSent, !isGone, !isFinished, framing != .none else { return }
        let room = roomLeft(for: bytes.count)
        guard room == bytes.count else { return room > 0 ? write(UnsafeRawBufferPointer(rebasing: bytes[..<room])) : () }
        if framing == .chunked { connection.queue(ResponseHead.chunkHeader(bytes.count)) }
        connection.queue(bytes)
        if framing == .chunked { connection.queue("\r\n") }
        bodyBytesSent += bytes.count
        drainArmed = true
        connection.flush()
    }

    /// Queues `span` of a file: a copy when small and nothing waits ahead of it (one buffer
    /// beats sendfile's extra system calls; onto a full buffer, copies would pile up in memory
    /// for a slow reader), otherwise a sendfile segment of a descriptor duplicated once per
    /// request, so that the cache may close its own meanwhile.
    public func writeFile(_ span: FileSpan) {
        guard span.length > 0, headSent, !isGone, !isFinished, framing != .none else { return }
        let room = roomLeft(for: span.length)
        guard room == span.length else { return room > 0 ? writeFile(FileSpan(descriptor: span.descriptor, offset: span.offset, length: room)) : () }
        let small = span.length <= ServerRequest.copyThreshold && connection.queued == 0
        if small || (connection.tls == nil && !segmentReady(span.descriptor)) {
            // Out of descriptors for the segment's copy: a copy rather than a stalled response.
            var bytes = [UInt8](repeating: 0, count: span.length)
            let n = bytes.withUnsafeMutableBytes { pread(span.descriptor, $0.baseAddress, span.length, off_t(span.offset)) }
            guard n == span.length else { return connection.close() } // a short file: the body can not be completed
            return bytes.withUnsafeBytes { write($0) }
        }
        if framing == .chunked { connection.queue(ResponseHead.chunkHeader(span.length)) }
        if connection.tls != nil {
            guard connection.queueFeed(span) else { return connection.close() }
        } else {
            guard connection.queueFile(segment!, offset: span.offset, length: span.length) else { return connection.close() }
        }
        if framing == .chunked { connection.queue("\r\n") }
        bodyBytesSent += span.length
        drainArmed = true
        connection.flush()
    }

    /// How many of `count` more body bytes the declared length still has room for. The head
    /// promised that many bytes and no more: bytes past it would be read by the client as the
    /// start of the next response (RFC 9112 section 6.3), so they are dropped, and the connection
    /// ends with this response, since whatever produced them did not agree with its own head.
    private func roomLeft(for count: Int) -> Int {
        guard case let .length(n) = framing else { return count }
        let room = max(0, min(count, n - bodyBytesSent))
        if room < count { keepAlive = false }
        return room
    }

    /// Drops the file segment; the next `writeFile` makes one for its descriptor (a remote
    /// request's descriptor copy changed, and its number may be reused by another file).
    func releaseSegment() {
        if let segment { evbuffer_file_segment_free(segment) }
        segment = nil
    }

    /// Makes `fd`'s sendfile segment this request's; false when no descriptor is left for it.
    func segmentReady(_ fd: Int32) -> Bool {
        if segment != nil && segmentFD == fd { return true }
        let copy = dup(fd)
        guard copy >= 0 else { return false }
        if let segment { evbuffer_file_segment_free(segment) }
        // CLOSE_ON_FREE closes the copy once the last piece queued from it has been sent.
        segment = evbuffer_file_segment_new(copy, 0, 1 << 50, UInt32(EVBUF_FS_CLOSE_ON_FREE))
        guard segment != nil else {
            Glibc.close(copy)
            return false
        }
        segmentFD = fd
        return true
    }
}
