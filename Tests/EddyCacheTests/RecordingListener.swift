import EddyCache

/// A cache listener that writes down what it hears, in order.
final class RecordingListener: CacheListener {
    enum Event: Equatable {
        case confirmed(key: String, count: Int)
        case dropped(key: String, count: Int)
        case removed(key: String, bytes: Int)
        case touched(key: String)
    }

    private(set) var events: [Event] = []

    /// Confirmed bytes heard of, less those heard dropped or removed.
    var netBytes: Int {
        events.reduce(0) { sum, e in
            switch e {
            case let .confirmed(_, n): return sum + n
            case let .dropped(_, n), let .removed(_, n): return sum - n
            case .touched: return sum
            }
        }
    }

    func bytesConfirmed(_ resource: CachedResource, count: Int) { events.append(.confirmed(key: resource.key, count: count)) }
    func bytesDropped(_ resource: CachedResource, count: Int) { events.append(.dropped(key: resource.key, count: count)) }
    func resourceRemoved(_ resource: CachedResource, bytes: Int) { events.append(.removed(key: resource.key, bytes: bytes)) }
    func resourceTouched(_ resource: CachedResource) { events.append(.touched(key: resource.key)) }
}
