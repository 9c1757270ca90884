import CLibevent

/// Queueing a response's bytes on the connection's output, by copy, by moving a buffer's chains,
/// by reference, or as a file segment for sendfile; `flush` writes them.
extension ClientConnection {
    func queue(_ text: String) {
        var text = text
        text.withUTF8 { _ = evbuffer_add(output, $0.baseAddress, $0.count) }
    }

    func queue(_ bytes: UnsafeRawBufferPointer) { evbuffer_add(output, bytes.baseAddress, bytes.count) }

    /// Moves `buffer`'s chains to the end of the output (no copy).
    func queue(buffer: OpaquePointer) { evbuffer_add_buffer(output, buffer) }

    /// Queues `bytes` by reference: `owner` is held until libevent has sent them.
    func queueReference(_ bytes: UnsafeRawBufferPointer, owner: AnyObject) {
        let hold = Unmanaged.passRetained(owner).toOpaque()
        evbuffer_add_reference(output, bytes.baseAddress, bytes.count, { _, _, hold in
            if let hold { Unmanaged<AnyObject>.fromOpaque(hold).release() }
        }, hold)
    }

    /// Queues `length` bytes of a file segment from `offset`; false when libevent refused it.
    func queueFile(_ segment: OpaquePointer, offset: Int, length: Int) -> Bool {
        evbuffer_add_file_segment(output, segment, Int64(offset), Int64(length)) == 0
    }
}
