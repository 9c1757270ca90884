import EddyCore
import EddyResources

/// The life of one cached response, as a value with no I/O: resolving (lookup, or waiting for a
/// discovery, revalidation or validation head), streaming (pieces from the cache, or a playlist
/// sent whole once stored), passed through, done; and what its `Cache-Status` says (RFC 9211).
/// `CacheExchange` feeds it events and performs the actions.
struct ExchangeStateMachine {
    enum State: Equatable {
        case resolving
        /// The head is planned: bytes go out as they are stored.
        case streaming
        /// An HLS playlist: sent whole, rewritten, once every byte is stored.
        case streamingPlaylist
        /// The origin's answer was not for storing: a pass-through response answers.
        case passedThrough
        case done
    }

    private(set) var state = State.resolving
    private(set) var cacheStatus = CacheStatus(forward: .miss)
    /// Set once this response asked the origin about the stored version before its head.
    private(set) var validated = false
    /// Set when a stored playlist could not be read as one: its bytes are served as they are.
    private(set) var playlistAsBytes = false
    /// The version whose bytes the response sends, once planned.
    private(set) var version: Int?

    var isDone: Bool { state == .done || state == .passedThrough }
    var isStreaming: Bool { state == .streaming || state == .streamingPlaylist }

    /// The lookup's outcome sets what `Cache-Status` reports unless bytes turn out missing.
    /// `variant`: the URL has stored responses that vary, and this request selected one by its
    /// fields (RFC 9111 section 4.1). `again`: the response looks up once more, as the head it
    /// waited for named fields it varies on; what the first lookup found stays the story
    /// (the head the response waited for was fetched for it: still a miss, not a hit).
    mutating func lookedUp(_ lookup: ValidationStateMachine.Lookup, variant: Bool = false, again: Bool = false) {
        if again, let f = cacheStatus.forward, f == .uriMiss || f == .varyMiss || f == .miss {
            if case .discover = lookup, variant { cacheStatus.forward = .varyMiss }
            return
        }
        switch lookup {
        case .hit: cacheStatus.forward = nil
        case .serveStaleWhileRevalidating:
            cacheStatus.forward = nil
            cacheStatus.detail = "stale-while-revalidate"
        case .joinRevalidation, .revalidate: cacheStatus.forward = .stale
        case .joinDiscovery: cacheStatus.forward = .miss
        case .discover: cacheStatus.forward = variant ? .varyMiss : .uriMiss
        }
    }

    /// The response is planned from `version` (it may be planned again, after a validation).
    mutating func planned(version: Int) { self.version = version }

    /// The head goes out: bytes follow as they are stored.
    mutating func headSent() { if !isDone { state = .streaming } }

    /// A playlist: it goes out whole once stored (unless it turned out unreadable before).
    mutating func awaitingPlaylist() { if !isDone && !playlistAsBytes { state = .streamingPlaylist } }

    /// The stored playlist can not be read as one: plan again, serving its bytes.
    mutating func playlistUnreadable() {
        playlistAsBytes = true
        state = .resolving
    }

    /// The head is about to go out; `covered` when every byte asked for is stored. A response the
    /// origin was asked to validate stays `fwd=stale` (RFC 9211 section 2.2), a new URL `uri-miss`.
    mutating func headPlanned(covered: Bool) {
        if covered && cacheStatus.forward != .uriMiss && cacheStatus.forward != .varyMiss && cacheStatus.forward != .stale {
            cacheStatus.forward = nil // every byte asked for is on disk: a hit
        } else if cacheStatus.forward == nil || cacheStatus.forward == .stale {
            cacheStatus.forward = cacheStatus.forward ?? .partial
        }
        cacheStatus.stored = cacheStatus.forward != nil
    }

    /// A 416: nothing was fetched for it, unless the URL was new.
    mutating func rangeNotSatisfiable() {
        if cacheStatus.forward != .uriMiss && cacheStatus.forward != .varyMiss { cacheStatus.forward = nil }
    }


    /// A playlist waits for missing bytes.
    mutating func playlistIncomplete() { if cacheStatus.forward == nil { cacheStatus.forward = .partial } }

    /// Offline, the age of a download's copy says nothing a player needs: `hit; detail=offline`.
    mutating func setTTL(_ ttl: Int?) { cacheStatus.ttl = isOffline ? nil : ttl }
    mutating func setStored(_ stored: Bool) { cacheStatus.stored = stored }
    /// The fill asks only `readahead` past the reader: said in `detail` unless it says more already.
    mutating func ranAhead() { if cacheStatus.detail == nil { cacheStatus.detail = CacheStatus.readaheadDetail } }

    /// Whether to ask the origin for the first missing block before the head (see
    /// `CacheExchange.validateBeforeHead`); at most once per response, never for HEAD, only for a
    /// hit or partial with a validator, a writable cache and no fill of this version streaming.
    mutating func shouldValidateBeforeHead(isHead: Bool, hasValidator: Bool, storeBroken: Bool, fillStreaming: Bool) -> Bool {
        guard !validated, !isHead, cacheStatus.forward == nil || cacheStatus.forward == .partial,
              hasValidator, !storeBroken else { return false }
        validated = true
        return !fillStreaming
    }

    /// What to do when the head this response waited for did not come.
    enum HeadFailure: Equatable {
        /// Serve the stored copy, stale (RFC 9111 section 4.2.4), with this `Cache-Status` detail.
        case serveStale
        /// The head is out: cut the response off.
        case abort(String)
        /// A validation before the head failed: go on with the stored bytes as any response does.
        case respondStored
        case fail(status: Int, reason: String)
    }

    /// True when the origin failed and a download's stored copy is served instead: a
    /// multivariant playlist then lists only what was downloaded whole.
    private(set) var isOffline = false

    /// The head failed for `reason`. `staleServable` when a stored copy of known length may be
    /// served stale (it does not require revalidation); `offline` when that copy is a download's
    /// (served as a hit whatever its age: it was fetched to be watched without the origin);
    /// `storedStillCurrent` when the resource this response holds is still the stored one.
    /// `askedByChild`: a child proxy asked, which has other parents to ask for the bytes this
    /// node could not fetch.
    mutating func headFailed(_ reason: String, timeout: Bool, staleServable: Bool, offline: Bool = false,
                             storedStillCurrent: Bool, askedByChild: Bool = false) -> HeadFailure {
        if (staleServable || offline) && cacheStatus.forward == .stale {
            if offline {
                servedOffline()
            } else {
                cacheStatus.detail = "stale: \(reason)"
            }
            return .serveStale
        }
        if isStreaming { return .abort(reason) }
        // A validation before the head runs only for bytes this node lacks. A player is served
        // what is stored, then cut off; a child is told at once (502 or 504), and asks its next
        // parent, which may hold the whole object (a download's copy). A head it could not fill
        // would cut off the child's own client, whose retries come back here (issue 32).
        if validated && storedStillCurrent && !askedByChild { return .respondStored }
        return .fail(status: timeout ? 504 : 502, reason: "upstream: \(reason)")
    }

    /// The origin answered the request this response waited on with `status`: a revalidation
    /// names it (`fwd=stale; fwd-status=304`, RFC 9211 section 2.4).
    mutating func originAnswered(_ status: Int) {
        if cacheStatus.forward == .stale { cacheStatus.forwardStatus = status }
    }

    /// A download's copy is served without the origin's word (it failed, stayed silent for
    /// `offline_wait`, or is known unreachable): a hit, `detail=offline`.
    mutating func servedOffline() {
        cacheStatus.forward = nil
        cacheStatus.detail = "offline"
        isOffline = true
    }

    /// Before sending bytes of `current`: the response must stop if the representation changed
    /// since it was planned (its head named the old one). Returns the reason to cut it off.
    func versionCheck(current: Int) -> String? {
        guard state == .streaming, let version, version != current else { return nil }
        return "the origin's representation changed during the response"
    }

    /// The response is handed to a pass-through; false if it had ended already.
    mutating func passThrough() -> Bool {
        guard !isDone else { return false }
        state = .passedThrough
        return true
    }

    /// The response ends; true the first time (the caller then logs and releases it).
    mutating func finish() -> Bool {
        guard !isDone else { return false }
        state = .done
        return true
    }
}
