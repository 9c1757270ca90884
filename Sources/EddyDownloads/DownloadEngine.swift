import EddyCache
import EddyCore
import EddyHLS
import EddyLoop
import EddyResources
import Foundation
import Logging

/// Offline HLS downloads (AVAssetDownloadURLSession for a Linux box): jobs that bring the
/// renditions a user chose of an HLS asset into the cache, pinned, through the resources'
/// coordinators (so a player watching meanwhile shares every fetch). At most
/// `maxParallel` jobs run at once; the rest wait queued. Jobs are kept in `JobDatabase` and
/// resume by themselves after a restart, at byte level (the cache keeps confirmed blocks).
package final class DownloadEngine {
    /// The limits of issue 12 (config keys `download_concurrency`, `max_parallel_downloads`,
    /// `download_retries`).
    package struct Settings {
        var concurrency = 8
        var maxParallel = 2
        var retries = 10
        /// Seconds a running job may go without ending a fetch or confirming a byte before the
        /// watchdog restarts its fetches (`stall_timeout`, as for one upstream transfer).
        var stallTimeout = 30.0
        /// When downloads without their own window run (`download_window`); nil: any time.
        var window: DownloadWindow?
        /// Bytes a second for all downloads together (`download_rate_limit`); 0: no limit.
        var rateLimit = 0

        package init(concurrency: Int = 8, maxParallel: Int = 2, retries: Int = 10, stallTimeout: Double = 30.0,
                     window: DownloadWindow? = nil, rateLimit: Int = 0) {
            (self.concurrency, self.maxParallel, self.retries, self.stallTimeout) = (concurrency, maxParallel, retries, stallTimeout)
            (self.window, self.rateLimit) = (window, rateLimit)
        }
    }

    /// Every resource's home: a download's fetches and cache reads run on its resources' homes.
    let homes: ResourceHomes
    let routing: Routing
    /// The routes as they are now (a reload replaces them).
    package var resolver: TargetResolver { routing.resolver }
    let settings: Settings
    /// The config's `download_window` as now (a reload replaces it).
    package var defaultWindow: DownloadWindow? {
        didSet { schedule() }
    }
    let logger: Logger
    /// `download_rate_limit`: held by every fetch of every job (see `limiters(of:)`).
    let rateLimiter: RateLimiter
    /// The main loop, where the engine runs.
    package var loop: EventLoop { homes.all[0].loop }
    /// The main loop's cache stripe, for the whole cache's totals and limit (shared by the stripes).
    var cache: CacheStore { homes.all[0].store }
    /// What the downloads hold for offline playback, for every loop's exchanges.
    let catalog: OfflineCatalog
    let database: JobDatabase?
    /// Jobs in creation order.
    package internal(set) var jobs: [DownloadJob] = []
    /// Ids removed (the last 1,000, kept in the job database across restarts), so that a repeated
    /// DELETE answers as the first.
    package internal(set) var removedIDs: [String] = []
    /// eddy's own listen address: URLs naming it are eddy URLs, resolved like a request-target.
    let selfAuthority: SelfAuthority
    /// Called when a job changes (state, a unit stored); the SSE streams listen here.
    private var observers: [Int: (DownloadJob) -> Void] = [:]
    private var nextObserver = 1
    private var saveTimer: LoopTimer!
    /// Runs `schedule()` from the loop once it runs (after a restore at start).
    var kick: LoopTimer!
    /// The locale for automatic media selection (LANG). Read with getenv: ProcessInfo copies the
    /// whole environment on first use, in eddy's start-up (issue 33).
    let locale = getenv("LANG").map { String(cString: $0) }
    /// What each kind of asset does (`DownloadFormat`); the engine reaches a format only here.
    private lazy var formats: [DownloadKind: any DownloadFormat] = [
        .hls: HLSDownloadFormat(self), .dash: DashDownloadFormat(self), .file: FileDownloadFormat(self),
    ]

    /// The format of `kind`.
    func format(of kind: DownloadKind) -> any DownloadFormat { formats[kind]! }

    package init(homes: ResourceHomes, routing: Routing, settings: Settings, database: JobDatabase?, selfAuthority: SelfAuthority,
         catalog: OfflineCatalog, logger: Logger) {
        self.homes = homes
        self.catalog = catalog
        self.routing = routing
        self.settings = settings
        defaultWindow = settings.window
        // Players go first: the limiter every download fetch holds gives way to them.
        rateLimiter = RateLimiter(rate: settings.rateLimit, yieldingTo: homes.all[0].coordinators.players)
        self.database = database
        self.selfAuthority = selfAuthority
        self.logger = logger
        let loop = homes.all[0].loop
        saveTimer = LoopTimer(loop: loop, repeating: true) { [unowned self] in
            for j in jobs where j.state.holdsSlot { save(j) }
            watchForStalls()
            expireDue()
            schedule() // windows open and close
        }
        saveTimer.schedule(after: 2)
        kick = LoopTimer(loop: loop) { [unowned self] in
            // Restored jobs that will not run now still need their plan: progress, and what
            // they hold for offline playback.
            for j in jobs where j.plan == nil && !j.state.holdsSlot && j.state != .queued && j.state != .cancelled {
                buildPlan(j, fetch: false)
            }
            expireDue()
            schedule()
            publishCatalog()
        }
        restore()
    }

    /// The job with `id`.
    package func job(_ id: String) -> DownloadJob? { jobs.first { $0.id == id } }

    // MARK: - persistence

    struct Record: Codable {
        var spec: DownloadSpec
        /// nil in records of versions before file downloads: HLS.
        var kind: DownloadKind?
        /// It has artwork (in the job database's own table).
        var artwork: Bool?
        var state: DownloadState
        var failure: String?
        var reason: String?
        var createdAt: Int
        var completedAt: Int?
        var bytesDone: Int
        var segmentsDone: Int
        var mediaSecondsDone: Double
        /// Its live recordings' headers, by media playlist URL (their segments are in their own table).
        var recordings: [String: LiveRecording.Header]?
        /// Each rendition's done counts, by media playlist URL (absent in records of older versions).
        var renditions: [String: Floor]?
        /// Renditions held beside better matches a refresh found (`DownloadJob.keptRenditions`).
        var kept: [SelectedRendition]?
        /// A file's new version is being fetched beside the old (`DownloadJob.staging`).
        var staging: Bool?
        /// The media playlist URLs held whole (`DownloadJob.restoredComplete`).
        var complete: [String]?
    }

    /// Done counts, as kept across restarts.
    struct Floor: Codable {
        var bytesDone: Int
        var segmentsDone: Int
        var mediaSecondsDone: Double
    }

    /// At a clean stop, once every loop has stopped: leaves the job database with no log to replay.
    package func shutdown() { database?.checkpoint() }

    package func save(_ job: DownloadJob) {
        guard let database else { return }
        _ = job.progress() // moves the floor up to what is stored now
        job.savedFloors = job.floorsRaised
        let r = Record(spec: job.spec, kind: job.kind, artwork: job.hasArtwork ? true : nil, state: job.state, failure: job.machine.failure, reason: job.machine.reason, createdAt: job.createdAt,
                       completedAt: job.completedAt, bytesDone: job.floor.bytesDone, segmentsDone: job.floor.segmentsDone,
                       mediaSecondsDone: job.floor.mediaSecondsDone,
                       recordings: job.recordings.isEmpty ? nil : Dictionary(uniqueKeysWithValues: job.recordings.map { ($0.key.description, $0.value.header) }),
                       renditions: job.renditionFloors.mapValues {
                           Floor(bytesDone: $0.bytesDone, segmentsDone: $0.segmentsDone, mediaSecondsDone: $0.mediaSecondsDone)
                       }, kept: job.keptRenditions.isEmpty ? nil : job.keptRenditions, staging: job.staging ? true : nil,
                       complete: job.plan.map { p in job.completeRenditions().map { p.renditions[$0].url.description }.sorted() }
                           ?? (job.restoredComplete.isEmpty ? nil : job.restoredComplete.sorted()))
        guard let data = try? JSONEncoder().encode(r), let text = String(data: data, encoding: .utf8) else { return }
        do { try database.save(id: job.id, created: job.createdAt, record: text) } catch {
            logger.error("cannot save a download job", metadata: ["id": "\(job.id)", "error": "\(error)"])
        }
    }

    // MARK: - the API's operations

    static func newID() -> String {
        (0..<6).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    package func pause(_ job: DownloadJob) {
        perform(job.machine.pause(), job)
        changed(job)
        schedule()
    }

    package func resume(_ job: DownloadJob) {
        perform(job.machine.resume(), job)
        changed(job)
        schedule()
    }

    /// Cancels the job, forgets it, and deletes what it stored (unpinned, removed from the cache)
    /// unless another job keeps it. A resource a response is sending from stays until that
    /// response ends (unpinned, then left to eviction): the player gets a whole, clean answer.
    /// Idempotent: the API answers a second `DELETE` with 404.
    package func remove(_ job: DownloadJob, then done: @escaping () -> Void = {}) {
        perform(job.machine.cancel(), job)
        jobs.removeAll { $0 === job }
        removedIDs.append(job.id)
        if removedIDs.count > 1000 { removedIDs.removeFirst() }
        do { try database?.remember(removed: job.id, at: loop.wallClock()) } catch {
            logger.error("cannot save a deleted download's id", metadata: ["id": "\(job.id)", "error": "\(error)"])
        }
        try? database?.remove(id: job.id)
        changed(job)
        release(job, delete: true) { [self] in
            spaceFreed()
            done()
        }
    }

    // MARK: - slots and observers

    /// Grants free parallel-download slots to queued jobs: important ones first, then oldest first.
    func schedule() {
        applyWindows()
        var running = jobs.filter { $0.state.holdsSlot }.count
        let queued = jobs.filter { $0.state == .queued && $0.policy.priority == .important } + jobs.filter { $0.state == .queued && $0.policy.priority == .normal }
        for j in queued where running < settings.maxParallel {
            // A job whose plan is known is measured before it runs; others once it is built.
            if j.plan != nil && !j.planStale, let why = spaceShortfall(j) {
                perform(j.machine.noSpace(why), j)
                changed(j)
                continue
            }
            running += 1
            perform(j.machine.slotGranted(), j)
            changed(j)
        }
    }

    /// Adds an observer of every job change; returns a token for `unobserve`.
    package func observe(_ f: @escaping (DownloadJob) -> Void) -> Int {
        let token = nextObserver
        nextObserver += 1
        observers[token] = f
        return token
    }

    package func unobserve(_ token: Int) { observers[token] = nil }

    func changed(_ job: DownloadJob) {
        job.offlineFiles = nil // what its offline URL serves is made again when next asked
        publishCatalog()
        readStoredMaster(job)
        notify(job)
    }

    /// Tells the observers (the dashboard's feed) of the job as it is now.
    func notify(_ job: DownloadJob) {
        for f in observers.values { f(job) }
    }
}
