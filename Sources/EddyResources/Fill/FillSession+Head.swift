import EddyCache
import EddyCore
import EddyLoop

/// The origin's head: what it means for the stored resource is `ValidationStateMachine`'s
/// decision; this performs it (insert, refresh, replace, drop, hand over) and releases the
/// responses waiting for it.
extension FillSession {
    func received(head: UpstreamHead) -> Bool {
        if passesOverParent(head) { return false } // ends this transfer; `completed` asks the next
        self.head = head
        let now = coordinators.loop.wallClock()
        if let r = resource {
            // A 304 need not repeat Vary, though it should (RFC 9110 section 15.4.5).
            let checks = [200, 206].contains(head.status) || (head.status == 304 && head.headers["Vary"] != nil)
            if checks && coordinators.varyChanged(r, head.headers) { return storedVaryChanged(r) }
            validation.resourceAtHead(r.meta, pinned: r.pinned)
        }
        let action = validation.headArrived(status: head.status, headers: head.headers, contentLength: head.contentLength, now: now,
                                            requestedAt: requestedAt)
        if let portal = validation.wrongKind {
            coordinators.health?.failed(url, why: portal)
        } else {
            coordinators.health?.answered(url)
        }
        switch action {
        case let .passThrough(why):
            refusal = why
            machine.fail("not storable: \(why)")
            coordinators.discoveryEnded(self, storable: false)
            return handedOver // the owner streams the rest of this response; otherwise stop it
        case let .store(meta, body):
            if body.openEnded { machine.openEnd() }
            let key = coordinators.storageKey(for: fetch, responseHeaders: head.headers, now: now)
            let r = coordinators.cache.insert(key: key, meta: meta, now: now)
            attach(to: r, body)
            if isPrefetch {
                // The player is about to ask: the whole body is wanted even with no response open.
                _ = coordinators.of(r).open(priority: .prefetch, fetchOnly: true, range: 0..<(body.length ?? Int.max),
                                            fetch: fetch, consumer: nil)
            }
            coordinators.discoveryEnded(self, storable: true)
            return true
        case let .fail(reason):
            if reason.hasPrefix("bad 206") {
                coordinators.logger.warning("rejected upstream 206", metadata: ["url": "\(url)", "reason": "\(reason)"])
            }
            fail(reason)
            return false
        case let .drop(reason):
            coordinators.logger.info("stored resource no longer storable", metadata: ["url": "\(url)", "reason": "\(reason)"])
            fail(reason)
            if let r = resource { coordinators.of(r).drop() }
            return false
        case let .refresh(meta):
            guard let r = resource else { return false }
            let c = coordinators.of(r)
            coordinators.cache.refresh(r, meta: meta)
            c.noteOriginAnswer(at: startedAt)
            machine.finish()
            finishRevalidation(c)
            return false // nothing more to read; the transfer ends
        case let .sameVersion(refreshed, body):
            guard let r = resource else { return false }
            if let refreshed { coordinators.cache.refresh(r, meta: refreshed) }
            return attachStored(r, body)
        case let .newVersion(meta, body):
            guard let r = resource else { return false }
            coordinators.metrics.validatorChanges += 1
            coordinators.logger.info("origin representation changed; dropping stored bytes", metadata: ["url": "\(url)"])
            coordinators.cache.replace(r, with: meta)
            coordinators.of(r).versionChanged(by: self)
            return attachStored(r, body)
        }
    }

    /// The origin began to vary, stopped, or varies on other fields than `r` was stored by: `r`
    /// can not be matched to requests any more (RFC 9111 section 4.1). It is dropped, and the
    /// responses waiting for this head look up again, finding or fetching their own variant.
    private func storedVaryChanged(_ r: CachedResource) -> Bool {
        coordinators.logger.info("origin's Vary changed; dropping the stored response", metadata: ["url": "\(url)"])
        let waiters = takeHeadWaiters()
        fail("vary changed", byOrigin: false)
        coordinators.of(r).drop()
        for w in waiters { w.headArrived(.ready) }
        return false
    }

    /// Revalidations, and range fills a response waits on before its head (see
    /// `CacheExchange.validateBeforeHead`), release their waiters once the version is known.
    private func attachStored(_ r: CachedResource, _ body: ValidationStateMachine.Body) -> Bool {
        version = r.version
        attach(to: r, body)
        finishRevalidation(coordinators.of(r))
        return true
    }

    private func finishRevalidation(_ c: ResourceCoordinator) {
        c.revalidationEnded(self)
        for w in takeHeadWaiters() { w.headArrived(.ready) }
    }

    func attach(to r: CachedResource, _ body: ValidationStateMachine.Body) {
        resource = r
        version = r.version
        let isFull = body.isFull
        machine.headVerified(bodyStart: body.start, isFull: isFull, bodyEnd: body.end)
        seedChecksum(r)
        coordinators.of(r).fillAttached(self, startedAt: startedAt, wholeBody: isFull && asked != nil)
    }

    /// A body that continues where a fill of this version broke off inside a block (see
    /// `FillStateMachine.breakOff`) continues that block's CRC-32 too, so a block completed by
    /// two responses is still checked after a restart.
    private func seedChecksum(_ r: CachedResource) {
        let start = machine.dataStart
        guard let u = r.unfinishedBlock, u.version == version, u.next == start,
              r.confirmed.contains(CacheStore.blocks.floor(start)..<start) else { return }
        r.unfinishedBlock = nil
        checksums = BlockChecksums(resuming: u)
    }
}
