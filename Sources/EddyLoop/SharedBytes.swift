import Glibc

/// An immutable byte buffer that responses reference instead of copy: evbuffer chains point into
/// it and each holds a retain until libevent has sent its bytes (see `ServerRequest.sendShared`).
public final class SharedBytes {
    public let count: Int
    let base: UnsafeMutableRawPointer

    /// `count` bytes written by `fill`; nil when `fill` returns false (a short or unreadable file).
    public init?(count: Int, fill: (UnsafeMutableRawBufferPointer) -> Bool) {
        guard count > 0, let p = malloc(count) else { return nil }
        guard fill(UnsafeMutableRawBufferPointer(start: p, count: count)) else {
            free(p)
            return nil
        }
        base = p
        self.count = count
    }

    deinit { free(base) }
}
