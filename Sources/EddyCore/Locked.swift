import Glibc

/// A value shared between loop threads, behind a pthread mutex.
///
/// A pthread mutex rather than the standard library's `Mutex`: ThreadSanitizer intercepts
/// pthread calls and so sees the ordering this lock gives, while `Mutex` is built from atomics
/// in a module the sanitizer does not instrument, so every access it guards would be reported
/// as a race in the TSan runs (scripts/test).
public final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    public init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock; keep it short and never call out of it.
    @discardableResult
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
