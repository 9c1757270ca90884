import EddyCache
import EddyCore
import EddyHLS
import EddyLoop
import EddyResources

/// What the fill this exchange waits on tells it: its head, interim heads, and its ticket's
/// events.
extension CacheExchange: HeadWaiter, TicketConsumer, FetchClient {
    package var isWaiting: Bool { !done }

    package func headArrived(_ outcome: HeadOutcome) {
        offlineTimer?.cancel()
        offlineTimer = nil
        if upstreamHeadAt == nil { upstreamHeadAt = EventLoop.monotonic() }
        if case .ready = outcome, let status = awaitedFill?.head?.status { machine.originAnswered(status) }
        switch outcome {
        case .ready:
            // The stored resource this waited on is gone when the origin's Vary changed (see
            // `FillSession.storedVaryChanged`): look up again. Checked here, not on every hit.
            if let r = resource, services.cache.lookup(key, now: services.loop.wallClock()) !== r { releaseResource() }
            resourceReady()
        case let .notStorable(transfer, head, refusal): passThrough(transfer: transfer, head: head, refusal: refusal)
        case let .failed(reason, timeout): headFailed(reason: reason, timeout: timeout)
        }
    }

    package func interimArrived(_ head: UpstreamHead) {
        if !done { services.loopServices.forwardInterim(head, to: request) }
    }

    package func ticket(_ ticket: Ticket, reports event: TicketEvent) {
        switch event {
        case .available, .newVersion: pump() // pump notices a version change and cuts the response off
        case let .failed(reason): abort(reason)
        case .cacheUnwritable: if let r = resource { streamDirect(r, end: body.pieceEnd) }
        case .done: break
        }
    }
}
