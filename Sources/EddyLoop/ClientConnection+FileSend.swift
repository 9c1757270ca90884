import CLibevent
import EddyCore
import Glibc

extension ClientConnection {
    /// A response may go straight to the socket: the connection is open and nothing is queued
    /// ahead of it.
    /// Never through TLS: its bytes must pass through OpenSSL.
    var writesDirectly: Bool { !closed && !detached && queued == 0 && tls == nil }

    /// The file holds all of `span` (one fstat): a response may promise its bytes before they
    /// are read.
    func holds(_ span: FileSpan) -> Bool {
        var st = stat()
        return fstat(span.descriptor, &st) == 0 && Int(st.st_size) >= span.offset + span.length
    }

    /// Sends a response's `head`, then `span` of a file, straight to the socket: the head with
    /// MSG_MORE, so that it leaves in one segment with the body's first bytes, and the body with
    /// sendfile, from the page cache without a copy through eddy's memory (nginx's way; the
    /// copy in and out of a reply buffer was the dearest part of a 16 KiB range, bench/RESULTS.md,
    /// issue 33, eleventh part). What the socket does not take now is read into the queue and
    /// goes with `flush`, which also meets any error the socket has.
    ///
    /// Only when `writesDirectly`, once `holds(span)` said the file has the bytes.
    func sendHead(_ head: UnsafeRawBufferPointer, thenFile span: FileSpan) {
        let sent = sendDirect(head, thenFile: span)
        if sent < span.length {
            queueCopy(FileSpan(descriptor: span.descriptor, offset: span.offset + sent, length: span.length - sent))
        }
    }

    /// Sends `head` with MSG_MORE, then as much of `span` as the socket takes now with sendfile,
    /// and returns how many of the file's bytes went. What of the head the socket did not take
    /// is queued (then no file byte is sent: the caller queues the rest of the body after it).
    ///
    /// Only when `writesDirectly`, once `holds(span)` said the file has the bytes.
    func sendDirect(_ head: UnsafeRawBufferPointer, thenFile span: FileSpan) -> Int {
        let sent = max(0, send(fd, head.baseAddress, head.count, Int32(MSG_MORE | MSG_NOSIGNAL)))
        if sent < head.count {
            queue(UnsafeRawBufferPointer(rebasing: head[sent...]))
            return 0
        }
        var offset = off_t(span.offset), left = span.length
        while left > 0 {
            let n = sendfile(fd, span.descriptor, &offset, left)
            if n > 0 {
                left -= n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                break // the socket is full (EAGAIN) or failed, or the file ended: the caller queues the rest
            }
        }
        lastActivity = EventLoop.monotonic()
        return span.length - left
    }

    /// Reads `span` into the end of the queue. When the file is short after all (cut since
    /// `holds`), the connection closes once the queue is out: the head promised the bytes, and
    /// a short body tells the client so.
    private func queueCopy(_ span: FileSpan) {
        var vec = iovec()
        guard evbuffer_reserve_space(output, span.length, &vec, 1) == 1,
              pread(span.descriptor, vec.iov_base, span.length, off_t(span.offset)) == span.length else {
            closeAfterResponse = true
            return
        }
        vec.iov_len = span.length
        evbuffer_commit_space(output, &vec, 1)
    }
}
