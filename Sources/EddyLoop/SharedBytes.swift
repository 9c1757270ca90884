import Glibc

/// An immutable byte buffer that responses reference instead of copy: evbuffer chains point into
/// it and each holds a retain until libevent has sent its bytes (see `ServerRequest.sendShared`).
public final class SharedBytes {
    public let count: Int
    let base: UnsafeMutableRawPointer

    /// Reads `count` bytes of `fd` at `offset`; nil when the file is short or unreadable.
    public init?(fd: Int32, offset: Int, count: Int) {
        guard count > 0, let p = malloc(count) else { return nil }
        guard pread(fd, p, count, off_t(offset)) == count else {
            free(p)
            return nil
        }
        base = p
        self.count = count
    }

    deinit { free(base) }
}
