import CLibevent
import EddyCore
import Glibc

extension ServerRequest {
    /// Drops the file segment; the next `writeFile` makes one for its descriptor (a remote
    /// request's descriptor copy changed, and its number may be reused by another file).
    func releaseSegment() {
        if let segment { evbuffer_file_segment_free(segment) }
        segment = nil
    }

    /// Queues `span` for sending with sendfile, then arms `onDrained`. Its descriptor is duplicated
    /// once per request, so the cache may close its own meanwhile.
    public func writeFile(_ span: FileSpan) {
        let fd = span.descriptor, offset = span.offset, length = span.length
        guard length > 0, !isGone, !isFinished, let out = eddy_evhttp_request_conn_output(raw) else { return }
        if length <= ServerRequest.copyThreshold && evbuffer_get_length(out) == 0 {
            // Small pieces: one pread and one buffer beat sendfile's extra system calls. Only onto
            // an empty buffer: a slow reader of a cold object is handed many small pieces as a fill
            // writes them, and copies would pile up to its high-water mark in memory (500 such
            // readers peaked at 73 to 160 MiB, measured); file segments cost a few bytes each.
            copyPiece(fd, offset: offset, length: length)
            return
        }
        if segment == nil || segmentFD != fd, !copySegmentReady(fd) {
            // Out of descriptors for the copy a sendfile segment needs: the bytes go as a copy
            // (at most a step, 256 KiB) rather than not at all, which would stall the response.
            copyPiece(fd, offset: offset, length: length)
            return
        }
        // All but the last byte go straight into the connection's output buffer (sendfile). The
        // last byte goes through evhttp_send_reply_chunk_with_cb, the only public way to arm
        // evhttp's drain callback, which ignores empty buffers.
        if length > 1 { evbuffer_add_file_segment(out, segment, Int64(offset), Int64(length - 1)) }
        var last: UInt8 = 0
        guard pread(fd, &last, 1, off_t(offset + length - 1)) == 1 else { return }
        bodyBytesSent += length
        withUnsafeBytes(of: &last) { chunk(UnsafeRawBufferPointer($0)) }
    }

    /// Makes the sendfile segment of `fd` the request's (one per request covering the whole file;
    /// pieces of it are added as needed). False when no descriptor is left for its copy.
    func copySegmentReady(_ fd: Int32) -> Bool {
        let dupFD = dup(fd)
        guard dupFD >= 0 else { return false }
        releaseSegment()
        // CLOSE_ON_FREE closes the dup when the last buffered piece has been sent.
        segment = evbuffer_file_segment_new(dupFD, 0, 1 << 50, UInt32(EVBUF_FS_CLOSE_ON_FREE))
        segmentFD = fd
        return true
    }

    /// Queues a piece of a file as a copy of its bytes.
    private func copyPiece(_ fd: Int32, offset: Int, length: Int) {
        withUnsafeTemporaryAllocation(byteCount: length, alignment: 16) { buf in
            let n = pread(fd, buf.baseAddress, length, off_t(offset))
            guard n == length else { return }
            bodyBytesSent += length
            chunk(UnsafeRawBufferPointer(buf))
        }
    }

    /// Queues bytes (copied) and arms `onDrained`.
    public func write(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty, !isGone, !isFinished else { return }
        bodyBytesSent += bytes.count
        chunk(bytes)
    }

    private func chunk(_ bytes: UnsafeRawBufferPointer) {
        let buf = evbuffer_new()
        evbuffer_add(buf, bytes.baseAddress, bytes.count)
        evhttp_send_reply_chunk_with_cb(raw, buf, { _, arg in
            guard let arg else { return }
            let r = Unmanaged<ServerRequest>.fromOpaque(arg).takeUnretainedValue()
            r.onDrained?()
        }, Unmanaged.passUnretained(self).toOpaque())
        evbuffer_free(buf)
    }
}
