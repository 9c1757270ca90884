import CLibevent
import EddyCore

/// Queueing a response's bytes on the connection's output, by copy, by moving a buffer's chains,
/// by reference, or as a file segment for sendfile; `flush` writes them. On a TLS connection
/// whose feed holds a file not yet read, what comes after it waits in the feed too, in order.
extension ClientConnection {
    func queue(_ text: String) {
        var text = text
        text.withUTF8 { queue(UnsafeRawBufferPointer($0)) }
    }

    func queue(_ bytes: UnsafeRawBufferPointer) {
        if !feed.isEmpty { return feed.append(bytes) }
        evbuffer_add(output, bytes.baseAddress, bytes.count)
    }

    /// Moves `buffer`'s chains to the end of the output (no copy).
    func queue(buffer: OpaquePointer) {
        guard !feed.isEmpty else { return _ = evbuffer_add_buffer(output, buffer) }
        let n = evbuffer_get_length(buffer)
        guard n > 0, let p = evbuffer_pullup(buffer, n) else { return }
        feed.append(UnsafeRawBufferPointer(start: p, count: n))
        evbuffer_drain(buffer, n)
    }

    /// Queues `bytes` by reference: `owner` is held until libevent has sent them.
    func queueReference(_ bytes: UnsafeRawBufferPointer, owner: AnyObject) {
        if !feed.isEmpty { return feed.append(bytes) }
        let hold = Unmanaged.passRetained(owner).toOpaque()
        evbuffer_add_reference(output, bytes.baseAddress, bytes.count, { _, _, hold in
            if let hold { Unmanaged<AnyObject>.fromOpaque(hold).release() }
        }, hold)
    }

    /// Queues `length` bytes of a file segment from `offset`; false when libevent refused it.
    func queueFile(_ segment: OpaquePointer, offset: Int, length: Int) -> Bool {
        evbuffer_add_file_segment(output, segment, Int64(offset), Int64(length)) == 0
    }

    /// TLS: queues `span` to be read into the output a step at a time as it drains; false when
    /// no descriptor is left for its copy.
    func queueFeed(_ span: FileSpan) -> Bool { feed.append(span) }
}
