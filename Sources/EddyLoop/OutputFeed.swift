import CLibevent
import EddyCore
import Glibc

/// The tail of a TLS connection's output that is not in its buffer yet: file spans, read a
/// step at a time as the buffer drains, and whatever was queued behind them.
///
/// sendfile can not go through TLS (the bytes must pass through OpenSSL), and an evbuffer file
/// segment on a buffer that does not drain to a descriptor is mapped or read whole when queued;
/// so a cached movie sent over TLS is read in `step`-sized pieces, never whole, and a client that
/// stops reading holds at most a step of it in memory (nginx's `output_buffers` do the same).
struct OutputFeed {
    enum Piece {
        case bytes([UInt8])
        /// A span of a descriptor duplicated for the feed, closed once read (or dropped).
        case file(descriptor: Int32, offset: Int, length: Int)
    }

    private var pieces: [Piece] = []
    /// Bytes waiting here.
    private(set) var total = 0

    var isEmpty: Bool { pieces.isEmpty }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        pieces.append(.bytes(Array(bytes)))
        total += bytes.count
    }

    /// Takes `span` (its descriptor duplicated); false when no descriptor is left for the copy.
    mutating func append(_ span: FileSpan) -> Bool {
        guard span.length > 0 else { return true }
        let copy = dup(span.descriptor)
        guard copy >= 0 else { return false }
        pieces.append(.file(descriptor: copy, offset: span.offset, length: span.length))
        total += span.length
        return true
    }

    /// Moves pieces into `buffer` until it holds `target` bytes or the feed is empty; false when
    /// a file was shorter than its span (the response can not be completed).
    mutating func topUp(_ buffer: OpaquePointer, to target: Int) -> Bool {
        while !pieces.isEmpty, evbuffer_get_length(buffer) < target {
            switch pieces[0] {
            case let .bytes(b):
                b.withUnsafeBytes { _ = evbuffer_add(buffer, $0.baseAddress, $0.count) }
                total -= b.count
                pieces.removeFirst()
            case let .file(fd, offset, length):
                let step = min(length, max(target - evbuffer_get_length(buffer), 16 << 10))
                var vec = iovec()
                guard evbuffer_reserve_space(buffer, step, &vec, 1) == 1 else { return false }
                let n = pread(fd, vec.iov_base, step, off_t(offset))
                guard n == step else { return false }
                vec.iov_len = step
                evbuffer_commit_space(buffer, &vec, 1)
                total -= step
                if step == length {
                    Glibc.close(fd)
                    pieces.removeFirst()
                } else {
                    pieces[0] = .file(descriptor: fd, offset: offset + step, length: length - step)
                }
            }
        }
        return true
    }

    /// Drops everything, closing the descriptors.
    mutating func removeAll() {
        for case let .file(fd, _, _) in pieces { Glibc.close(fd) }
        pieces.removeAll()
        total = 0
    }
}
