import EddyCore

/// One kind of asset a download can be of, as Media3's `SegmentDownloader` subclasses are
/// (`HlsDownloader`, `DashDownloader`) beside its `ProgressiveDownloader`: how the asset is checked
/// when a job is added, how a job's plan is built from its manifest, and what it offers offline.
/// The engine keeps everything else the same for every format: units, fetches, retries, pins,
/// progress, windows, caps, verify. It reaches a format only through `DownloadEngine.format(of:)`.
protocol DownloadFormat: AnyObject {
    /// Checks `spec` against the asset at `url` (its manifest fetched, the selection made) when a
    /// job is added; nil when a job can be made of it, else the error to answer.
    func check(_ spec: DownloadSpec, url: UpstreamURL, checkAddress: Bool, done: @escaping (DownloadInputError?) -> Void)

    /// Builds `job`'s plan from its manifest and adopts it (`DownloadEngine.adoptPlan`); with
    /// `fetch` false, from what the cache holds alone (a job restored completed, paused or failed).
    func buildPlan(_ job: DownloadJob, fetch: Bool)

    /// Asks the origin what the asset holds now and adds what the job's selection now picks
    /// (`POST .../refresh`); `job` holds pins.
    func refresh(_ job: DownloadJob, done: @escaping (Result<RefreshReport, DownloadInputError>) -> Void)

    /// The files of `eddy download export`; `job` has `plan`.
    func exportFiles(_ job: DownloadJob, plan: DownloadPlan, then done: @escaping (Result<[ExportFile], DownloadInputError>) -> Void)

    /// True when a player could play the asset with the origin gone; `complete` is
    /// `job.completeRenditions()`.
    func playableOffline(_ job: DownloadJob, plan: DownloadPlan, complete: Set<Int>) -> Bool

    /// Where the asset plays offline.
    func offlineURL(_ job: DownloadJob) -> String

    /// True when the manifest served offline is cut down to the renditions downloads hold whole
    /// (the offline catalog lists this format's jobs).
    var cutsManifestOffline: Bool { get }
}
