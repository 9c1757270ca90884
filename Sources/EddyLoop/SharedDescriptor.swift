import Glibc

/// A descriptor of its own for a file that several threads may send from: a `dup` of the cache's,
/// closed when the last reference goes. The cache may close or replace its own meanwhile (a new
/// version, eviction); an unlinked file's bytes stay readable through this one.
public final class SharedDescriptor: @unchecked Sendable {
    /// The descriptor; valid as long as this object lives.
    public let fd: Int32

    /// A duplicate of `fd`; nil when none can be made (out of descriptors).
    public init?(duplicating fd: Int32) {
        guard fd >= 0 else { return nil }
        let copy = dup(fd)
        guard copy >= 0 else { return nil }
        self.fd = copy
    }

    deinit { close(fd) }
}
