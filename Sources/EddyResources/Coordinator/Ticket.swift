import EddyCache
import EddyLoop

/// A consumer's claim on a resource's bytes at a priority, returned by `ResourceCoordinator.open`.
/// A response moves the ticket as it sends (`advance`) and asks for more when it runs dry
/// (`need`); a fetch-only ticket (prefetch, download) is moved by the coordinator as blocks land.
/// Reports reach the consumer as `TicketEvent`s. Close it when done: an open ticket keeps its
/// resource from eviction as a whole, and its bytes ahead of its position from block eviction.
package final class Ticket {
    let id: Int
    let priority: FetchPriority
    /// The resource; the ticket keeps it (and so its coordinator) alive while open.
    package let resource: CachedResource
    package let coordinator: ResourceCoordinator
    /// What fills started for this ticket send upstream.
    let fetch: FetchContext
    weak var consumer: TicketConsumer?
    private(set) var isOpen = true
    var retryTimer: LoopTimer?

    init(id: Int, priority: FetchPriority, resource: CachedResource, coordinator: ResourceCoordinator,
         fetch: FetchContext, consumer: TicketConsumer?) {
        self.id = id
        self.priority = priority
        self.resource = resource
        self.coordinator = coordinator
        self.fetch = fetch
        self.consumer = consumer
    }

    /// Starts reading at `position`, up to `end` (exclusive; `Int.max` for "to the end").
    package func read(from position: Int, to end: Int) { if isOpen { coordinator.read(id, from: position, to: end) } }

    /// The consumer has sent up to `position`; `end` when its last needed byte moved.
    package func advance(to position: Int, end: Int? = nil) { if isOpen { coordinator.advance(id, to: position, end: end) } }

    /// Bytes readable at `offset` now: confirmed, or written by a fill of the current version.
    package func available(at offset: Int) -> Int { coordinator.available(at: offset) }

    /// Nothing is readable at the position: wait for a fill, start one, retry or give up. The
    /// answer comes as an event (at once when it is a failure).
    package func need() { if isOpen { coordinator.need(self) } }

    /// Releases the resource. Idempotent.
    package func close() {
        guard isOpen else { return }
        isOpen = false
        retryTimer?.cancel()
        retryTimer = nil
        coordinator.close(self)
    }

    func report(_ event: TicketEvent) {
        guard isOpen else { return }
        consumer?.ticket(self, reports: event)
    }
}
