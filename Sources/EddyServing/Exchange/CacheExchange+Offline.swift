import EddyCache
import EddyLoop
import EddyResources

/// The offline policy (issue 28) for a download's stored copies. AVFoundation plays a downloaded
/// asset from local storage without the network; here:
/// - its media (segments, initialization sections, keys, WebVTT) and VOD media playlists are
///   immutable (RFC 8216bis section 6.2.1: a playlist with EXT-X-ENDLIST or PLAYLIST-TYPE:VOD does
///   not change, nor do the segments it names): served from disk without asking the origin;
/// - its multivariant playlist (or MPD) is revalidated whenever the origin is reachable, so players online
///   see every variant, and served cut down to what is held whenever it is not, fresh or stale;
/// - no client waits on an origin marked unreachable (`OriginHealth`), and the first to find it
///   silent waits at most `offline_wait`.
extension CacheExchange {
    /// How the policy treats a stored copy.
    enum OfflineRole {
        /// Not a download's: RFC 9111 as usual.
        case none
        /// Served from disk whatever its age.
        case immutable
        /// Revalidated online (never fresh); answered from disk when the origin is unreachable.
        case revalidated
        /// A live playlist a download records: fresh as usual; answered from disk (its
        /// recording) when the origin is unreachable.
        case live
    }

    /// The role of `r` (its playlist kind is known by now, see `begin`).
    func offlineRole(_ r: CachedResource) -> OfflineRole {
        guard r.pinned, r.meta.length != nil else { return .none }
        // A playlist a download recorded live is its recording offline, whatever the origin's
        // last copy says (an ended sliding window lacks the recording's first segments).
        if services.recordedPlaylist?(url) != nil { return .live }
        let c = coordinator(of: r)
        // A download's MPD is its asset's multivariant description: revalidated online, cut down
        // to what is held offline; a dynamic one (learnt live when served) as a live playlist.
        if services.playlists.isPlaylist(r, url: url, coordinator: c), services.playlists.isMPD(r, url: url) {
            if case .live? = c.hlsKind { return .live }
            return .revalidated
        }
        switch c.hlsKind {
        case .multivariant?: return .revalidated
        case .live?: return .live
        case .vod?, nil: return .immutable
        }
    }

    /// Whether `r` counts as fresh for this request: the role decides for a download's copy.
    func freshUnderOfflinePolicy(_ r: CachedResource, role: OfflineRole, now: Int) -> Bool {
        switch role {
        case .immutable: return true
        case .revalidated: return false
        case .none, .live: return services.isFresh(coordinator(of: r), now: now)
        }
    }

    /// Answers from the download's copy without asking the origin, which is known unreachable.
    /// One probe at a time finds out when it is back: this copy's revalidation, in the background
    /// once this response has ended (as stale-while-revalidate's, RFC 5861 section 3).
    func answerOffline(_ r: CachedResource) {
        machine.servedOffline()
        if services.health?.claimProbe(url) == true { revalidateWhenDone = true }
        respond(r)
    }

    /// This response waits on its fill (`awaitedFill`) for the origin's word on a download's copy: after
    /// `offline_wait` the origin is taken as unreachable and the copy served from disk. The fill
    /// goes on without this response (its end, or its failure, still tells `OriginHealth`).
    func armOfflineWait() {
        let timer = LoopTimer(loop: services.loop) { [weak self] in
            guard let self, !self.done, self.offlineTimer != nil, let r = self.resource else { return }
            self.offlineTimer = nil
            self.services.health?.failed(self.url, why: "no answer within offline_wait (\(self.services.offlineWait) s)")
            self.awaitedFill?.forget(self)
            self.machine.servedOffline()
            self.respond(r)
        }
        offlineTimer = timer
        timer.schedule(after: services.offlineWait)
    }
}
