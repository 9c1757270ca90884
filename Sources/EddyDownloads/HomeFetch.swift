import EddyCache
import EddyCore
import EddyHLS
import EddyLoop
import EddyResources

/// A download's `ResourceFetch`, run on its resource's home (see `Homes`) for the engine on the
/// main loop. The engine starts, cancels and polls it from the main loop; the fetch itself, and
/// whatever is done to the stored resource once it is there (pinning it, reading it as a
/// playlist), happen on the home, and the engine hears the outcome as values, on the main loop
/// (at once, inside `start`, when the home is the main loop and the resource is stored whole).
package final class HomeFetch {
    /// What the engine learns of a stored resource.
    struct Stored {
        let status: Int
        let length: Int?
        /// Confirmed bytes.
        let bytes: Int
        /// The resource as an HLS playlist, when asked for and it is one.
        let playlist: HLSPlaylist?
        /// What its first bytes say it is, when asked to sniff (see `DownloadKind.sniff`).
        var kind: DownloadKind? = nil
        /// False once the origin answered a Range request with the whole body.
        var acceptsRanges = true
        /// The whole body, when asked for (`Options.readBody`), stored whole and small enough.
        var body: [UInt8]? = nil
    }

    enum Outcome {
        case stored(Stored)
        case failed(String, status: Int?, retryAfter: Double?)
    }

    /// What to do on the home once the resource is stored.
    struct Options {
        /// Pin it (for a playlist: only when it is one).
        var pin = false
        /// Read it as an HLS playlist (one with at least one #EXT line), and remember its kind.
        var readPlaylist = false
        /// Sniff its first bytes: an HLS playlist or a file (`Stored.kind`).
        var sniff = false
        /// Ask the origin itself, not a parent's stored copy (a refresh).
        var askOrigin = false
        /// Read the whole body when it is at most this many bytes (an MPD; `Stored.body`).
        var readBody: Int? = nil
    }

    let url: UpstreamURL
    /// When the fetch started (monotonic), for the job's log.
    let startedAt = EventLoop.monotonic()
    private let homes: ResourceHomes
    private let home: ResourceHome
    /// Main loop: false once reported or cancelled.
    private(set) var isWaiting = true
    private var onDone: ((Outcome) -> Void)?
    /// Home loop only.
    private var fetch: ResourceFetch?

    init(homes: ResourceHomes, url: UpstreamURL, key: String, checkAddress: Bool, range: Range<Int>? = nil, options: Options = Options(),
         limiters: [RateLimiter] = [], revalidate: ((ResourceHome, CachedResource) -> Bool)? = nil, onDone: @escaping (Outcome) -> Void) {
        self.homes = homes
        self.url = url
        self.onDone = onDone
        home = homes.home(of: key)
        let main = homes.all[0]
        let home = home
        // Holds this fetch until it has run on the home (`start` drops it here first).
        starter = { [self] in
            let f = ResourceFetch(coordinators: home.coordinators, url: url, key: key, checkAddress: checkAddress, range: range, limiters: limiters,
                                  revalidate: revalidate.map { check in { check(home, $0) } }, askOrigin: options.askOrigin) { [weak self] outcome in
                let result = HomeFetch.settle(outcome, on: home, options: options)
                if main.isCurrent { self?.report(result) } else { main.mailbox.post { self?.report(result) } }
            }
            f.onProgress = { [weak self] bytes in
                if main.isCurrent { self?.confirmedBytes = bytes } else { main.mailbox.post { self?.confirmedBytes = bytes } }
            }
            self.fetch = f
            f.start()
        }
    }
    private var starter: (() -> Void)?

    /// Holds this fetch from `start` until it reports or is cancelled: the home's fetch holds it
    /// only weakly, so a caller need not keep it to hear the outcome.
    private var keepAlive: HomeFetch?

    /// Starts the fetch on the resource's home.
    func start() {
        guard let s = starter else { return }
        starter = nil
        keepAlive = self
        if home.isCurrent { s() } else { home.mailbox.post(s) }
    }

    /// Stops it; nothing is reported afterwards.
    func cancel() {
        isWaiting = false
        onDone = nil
        keepAlive = nil
        if home.isCurrent {
            fetch?.cancel()
            fetch = nil
        } else {
            home.mailbox.post { [self] in
                fetch?.cancel()
                fetch = nil
            }
        }
    }

    /// Bytes of the wanted range confirmed so far, for live progress: pushed from the home as
    /// blocks are confirmed (main loop).
    private(set) var confirmedBytes = 0

    private func report(_ outcome: Outcome) {
        guard isWaiting, let f = onDone else { return }
        isWaiting = false
        onDone = nil
        keepAlive = nil
        f(outcome)
    }

    /// On the home: what the engine needs of `outcome`, after pinning and reading as asked.
    private static func settle(_ outcome: ResourceFetch.Outcome, on home: ResourceHome, options: Options) -> Outcome {
        switch outcome {
        case let .failed(reason, status, retryAfter):
            return .failed(reason, status: status, retryAfter: retryAfter)
        case let .stored(r):
            var playlist: HLSPlaylist?
            if options.readPlaylist, let p = home.playlists.readPlaylist(r), p.lines.contains(where: { $0.text.hasPrefix("#EXT") }) {
                playlist = p
                home.coordinators.of(r).learned(p.kind)
            }
            if options.pin && (playlist != nil || !options.readPlaylist) { home.store.setPinned(r, true) }
            var stored = Stored(status: r.meta.status, length: r.meta.length, bytes: r.confirmed.count, playlist: playlist)
            stored.acceptsRanges = !home.coordinators.of(r).originIgnoresRange
            if let limit = options.readBody, r.isComplete, let len = r.meta.length, len <= limit, home.store.verify(r, 0..<len) {
                stored.body = home.store.read(r, 0..<len)
            }
            if options.sniff {
                let n = min(512, r.confirmed.contiguousLength(from: 0))
                let prefix = n > 0 ? home.store.read(r, 0..<n) ?? [] : []
                stored.kind = DownloadKind.sniff(prefix: prefix, contentType: r.meta.contentType)
            }
            return .stored(stored)
        }
    }
}
