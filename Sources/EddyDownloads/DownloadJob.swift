import EddyCore
import EddyHLS
import EddyLoop
import Foundation

/// One download: what was asked (`spec`), where it is (`machine`), what it fetches (`plan`,
/// built when it first runs and again after a restart, from playlists the cache keeps), and
/// which units are stored. `DownloadEngine` drives it; this type holds state and computes progress.
package final class DownloadJob {
    package let id: String
    /// What was asked; `PATCH` adds renditions to it.
    package var spec: DownloadSpec { didSet { policy = DownloadJob.policy(spec, createdAt) } }
    /// Priority and expiry, read from `spec` (validated when the job was created).
    package private(set) var policy: DownloadPolicy
    /// Its own byte rate (`--rate`; no limit without one), held by every fetch it starts, so a
    /// `PATCH` changes the fetches in flight too.
    let rateLimiter: RateLimiter
    /// It has artwork in the job database (`DownloadEngine.artwork(of:)`).
    package var hasArtwork = false
    let url: UpstreamURL
    let checkAddress: Bool
    /// An HLS asset or one file (see `DownloadKind`).
    package let kind: DownloadKind
    package let createdAt: Int
    package var completedAt: Int?
    package var machine: DownloadJobStateMachine
    package var plan: DownloadPlan?
    /// The spec changed since `plan` was built: the next run builds it again.
    var planStale = false
    /// Renditions a refresh found a better match for, still held beside it (their variant
    /// index as the playlist of their time had it); every plan includes them.
    var keptRenditions: [SelectedRendition] = []
    /// The media playlist URLs it held whole when last saved: what it holds for offline playback
    /// after a restart until its plan is built again from the cache (a player on a plane asks at
    /// once, and an empty set would cut every variant out of the master).
    var restoredComplete: Set<String> = []
    /// A file download's refresh found a new version: it is fetched under the staging key
    /// (`Coordinators.stagingKey`) while the old one stays whole and pinned under the URL's key,
    /// which it replaces once complete (`DownloadEngine.promote`).
    var staging = false
    /// Which units of the plan are stored, in flight, or waiting for their own backoff while the
    /// others go on, and which go next (see `UnitScheduleStateMachine`).
    var units = UnitScheduleStateMachine()
    /// The fetches of the units in flight, by index.
    var fetches: [Int: HomeFetch] = [:]
    /// Wakes `pump` when nothing is in flight and the next unit waits for its backoff.
    var pumpTimer: LoopTimer?
    var window: FetchWindow
    /// Fetches of the playlists while the plan is built.
    var resolving: [HomeFetch] = []
    /// Counts plans built; a plan whose stored units its homes report after a newer build began
    /// (or after the job stopped fetching) is dropped.
    var planGeneration = 0
    var retryTimer: LoopTimer?
    /// Consecutive failures to build the plan (a playlist could not be had).
    var planFailures = 0
    /// Recordings of its live or EVENT renditions, by media playlist URL (see `LiveRecording`).
    package var recordings: [UpstreamURL: LiveRecording] = [:]
    /// What its plan is built from besides the recordings, to build it again as they grow.
    var planInputs: (playlist: MultivariantPlaylist?, selection: [SelectedRendition], media: [UpstreamURL: MediaPlaylist])?
    /// The next reload of the live playlists, a reload in flight, consecutive failed reloads,
    /// and when a recording last grew (monotonic seconds).
    var reloadTimer: LoopTimer?
    var reloading = false
    var reloadFailures = 0
    var lastGrowth = 0.0
    /// Some live rendition is still being recorded: the job is not complete, whatever it holds.
    var isRecording: Bool { recordings.values.contains { !$0.hasEnded } }
    /// Highest progress shown so far (persisted): what is shown never goes below it.
    var floor = DownloadProgress()
    /// The same for each rendition, by media playlist URL (indices change when a plan is built
    /// again; URLs do not).
    var renditionFloors: [String: DownloadProgress] = [:]
    /// Bumped whenever a floor rises; `savedFloors` is its value at the last save. Progress is
    /// saved before it is shown once it rose, so a kill -9 never shows less than was shown.
    package private(set) var floorsRaised = 0
    package var savedFloors = 0
    /// When the job last moved (a unit ended, a byte was confirmed), and the bytes it then had:
    /// the engine's stall watchdog compares them (monotonic seconds).
    var lastMove = (at: 0.0, bytes: -1, units: -1)
    /// What its offline URL serves, by path (see `DownloadEngine.offlineFiles`); nil until asked
    /// after a change.
    var offlineFiles: [String: ExportFile]?
    /// The stored multivariant playlist as last read on its home, and the renditions held whole
    /// then (see `DownloadEngine.readStoredMaster`); a read is in flight while `readingMaster`.
    var storedMaster: (playlist: HLSPlaylist?, complete: Set<Int>)?
    var readingMaster = false
    /// Fetches of units that ended (stored or failed), for the watchdog.
    var fetchesEnded = 0
    /// The job's access and error log, newest last, bounded.
    package private(set) var log: [[String: String]] = []
    static let maxLog = 2000
    /// (monotonic seconds, bytes done) samples for the rate.
    private var samples: [(Double, Int)] = []

    init(id: String, spec: DownloadSpec, url: UpstreamURL, checkAddress: Bool, kind: DownloadKind = .hls, createdAt: Int,
         machine: DownloadJobStateMachine, concurrency: Int) {
        self.id = id
        self.kind = kind
        self.spec = spec
        self.url = url
        self.checkAddress = checkAddress
        self.createdAt = createdAt
        self.machine = machine
        window = FetchWindow(limit: concurrency)
        policy = DownloadJob.policy(spec, createdAt)
        rateLimiter = RateLimiter(rate: (try? spec.rateLimit()).flatMap { $0 } ?? 0)
    }

    private static func policy(_ spec: DownloadSpec, _ createdAt: Int) -> DownloadPolicy {
        (try? spec.policy(createdAt: createdAt)) ?? DownloadPolicy()
    }

    /// Bytes of the units it holds, pinned while the job is neither expired nor cancelled.
    package var pinnedBytes: Int {
        guard state.holdsPins else { return 0 }
        return units.tally.storedBytes
    }

    package var state: DownloadState { machine.state }

    /// Records an event in the log (each segment request, each error).
    func record(_ fields: [String: String]) {
        var f = fields
        f["time"] = ISO8601Time.format(Int(Date().timeIntervalSince1970))
        log.append(f)
        if log.count > DownloadJob.maxLog { log.removeFirst(log.count - DownloadJob.maxLog) }
    }

    /// Installs a plan; `stored` says which units the cache holds whole already (their bytes, by
    /// unit id).
    func adopt(_ p: DownloadPlan, stored: [String: Int]) {
        plan = p
        var held: [Int: Int] = [:]
        if !stored.isEmpty { for (i, u) in p.units.enumerated() { if let n = stored[u.id] { held[i] = n } } }
        units.reset(facts: p.units.map(\.facts), stored: held)
        planStale = false
    }

    /// Takes a plan that extends the current one (a recording grew): units already planned keep
    /// their place and state (fetches in flight refer to them by index); new units go at the end,
    /// not done until `settle` or their fetch says otherwise.
    func grow(_ p: DownloadPlan) {
        guard var merged = plan else { return adopt(p, stored: [:]) }
        let known = Set(merged.units.map(\.id))
        let added = p.units.filter { !known.contains($0.id) }
        merged.units += added
        merged.renditions = p.renditions
        merged.drm = p.drm
        merged.hasKeys = merged.hasKeys || p.hasKeys
        plan = merged
        units.grow(facts: added.map(\.facts))
    }

    /// Marks done the units from index `start` on that the cache holds whole (`stored`: their
    /// bytes, by unit id), unless done already or in flight (their fetch settles them). True when
    /// any was marked.
    func settle(_ stored: [String: Int], from start: Int) -> Bool {
        guard let planned = plan?.units, !stored.isEmpty, start < planned.count else { return false }
        var settled = false
        for i in start..<planned.count {
            guard let n = stored[planned[i].id] else { continue }
            if units.settle(i, bytes: n) { settled = true }
        }
        return settled
    }

    var allStored: Bool { plan != nil && units.allStored }

    /// Renditions (indices into the plan's) whose every unit is stored: playable offline.
    package func completeRenditions() -> Set<Int> {
        guard let plan else { return [] }
        return Set(plan.renditions.indices.filter { units.tally.tally($0).pending == 0 })
    }

    // MARK: - progress

    /// Progress of the whole job and of each rendition, kept at least at `floor`: from the sums
    /// `units` keeps (`ProgressTally`) and the fetches in flight, O(renditions + fetches).
    package func progress() -> (DownloadProgress, [DownloadProgress]) {
        guard let plan else { return (floor, []) }
        units.refreshLoaded()
        var per: [DownloadProgress] = [], rates: [Double] = []
        for r in plan.renditions.indices {
            let t = units.tally.tally(r)
            // Bytes per media second seen so far, else the variant's bit rate, for estimates.
            let rate = t.bytesPerSecond ?? plan.renditions[r].bandwidth.map { Double($0) / 8 } ?? 0
            rates.append(rate)
            per.append(DownloadJob.progress(of: t, estimating: rate))
        }
        var other = DownloadJob.progress(of: units.tally.tally(nil), estimating: 0)
        // A unit in flight counts what its fetch confirmed; one of unknown length is expected to
        // be at least that.
        for (i, f) in fetches where i < plan.units.count && !units.done[i] {
            let u = plan.units[i], got = f.confirmedBytes
            var more = 0
            if u.range == nil {
                let estimate = u.kind == .segment ? u.rendition.map { Int(rates[$0] * u.duration) } ?? 0 : 0
                more = max(estimate, got) - estimate
            }
            if let r = u.rendition, r < per.count {
                per[r].bytesDone += got
                per[r].bytesExpected += more
            } else {
                other.bytesDone += got
                other.bytesExpected += more
            }
        }
        var total = DownloadProgress()
        total.bytesDone = other.bytesDone
        total.bytesExpected = other.bytesExpected
        total.bytesExact = other.bytesExact
        for r in plan.renditions.indices {
            // A segment shared with another rendition (deduplicated) still counts for both.
            per[r].segmentsTotal = max(per[r].segmentsTotal, plan.renditions[r].segments)
            per[r].mediaSecondsTotal = max(per[r].mediaSecondsTotal, plan.renditions[r].mediaSeconds)
            total.bytesDone += per[r].bytesDone
            total.bytesExpected += per[r].bytesExpected
            total.bytesExact = total.bytesExact && per[r].bytesExact
            total.segmentsTotal += per[r].segmentsTotal
            total.segmentsDone += per[r].segmentsDone
            total.mediaSecondsTotal += per[r].mediaSecondsTotal
            total.mediaSecondsDone += per[r].mediaSecondsDone
        }
        // The job's loaded ranges: those of its first rendition (what a player would play).
        total.loadedTimeRanges = per.first?.loadedTimeRanges ?? []
        // After keepAtLeast every done count is at or above the floor: it becomes the new floor.
        raise(&total, &floor)
        for r in plan.renditions.indices {
            var f = renditionFloors[plan.renditions[r].url.description] ?? DownloadProgress()
            raise(&per[r], &f)
            renditionFloors[plan.renditions[r].url.description] = f
        }
        return (total, per)
    }

    /// A rendition's progress from its sums, the bytes of its pending segments estimated at
    /// `rate` bytes a media second.
    private static func progress(of t: RenditionTally, estimating rate: Double) -> DownloadProgress {
        var p = DownloadProgress()
        p.bytesDone = t.doneBytes
        p.bytesExpected = t.doneBytes + t.pendingExactBytes + Int(rate * t.pendingEstimatedSeconds)
        p.bytesExact = t.pendingInexact == 0
        p.segmentsDone = t.segmentsDone
        p.segmentsTotal = t.segmentsTotal
        p.mediaSecondsDone = t.mediaSecondsDone
        p.mediaSecondsTotal = t.mediaSecondsTotal
        p.loadedTimeRanges = t.loaded
        return p
    }

    /// Keeps `p`'s done counts at least at `f`'s, then makes them the floor.
    private func raise(_ p: inout DownloadProgress, _ f: inout DownloadProgress) {
        p.keepAtLeast(f)
        if p.bytesDone > f.bytesDone || p.segmentsDone > f.segmentsDone || p.mediaSecondsDone > f.mediaSecondsDone {
            floorsRaised &+= 1
        }
        f.bytesDone = p.bytesDone
        f.segmentsDone = p.segmentsDone
        f.mediaSecondsDone = p.mediaSecondsDone
    }

    /// Bytes per second over the last ten seconds.
    package func rate(bytesDone: Int, now: Double) -> Double {
        samples.append((now, bytesDone))
        while let first = samples.first, now - first.0 > 10, samples.count > 2 { samples.removeFirst() }
        guard state == .running || state == .waitingForOrigin, let first = samples.first, now - first.0 > 0.5 else { return 0 }
        return Double(bytesDone - first.1) / (now - first.0)
    }
}
