import EddyCore

/// Any other file (an MP4, an MKV, an ISO): parallel block-aligned ranges of one resource;
/// refresh by its validator; export as the file; offline at `/_eddy/offline/ID/NAME`.
final class FileDownloadFormat: DownloadFormat {
    unowned let engine: DownloadEngine
    init(_ engine: DownloadEngine) { self.engine = engine }

    /// The probe that classified it already fetched its first block; only the options are checked.
    func check(_ spec: DownloadSpec, url: UpstreamURL, checkAddress: Bool, done: @escaping (DownloadInputError?) -> Void) {
        done(spec.fileOptionsError)
    }

    func buildPlan(_ job: DownloadJob, fetch: Bool) { engine.buildFilePlan(job, fetch: fetch) }

    func refresh(_ job: DownloadJob, done: @escaping (Result<RefreshReport, DownloadInputError>) -> Void) {
        engine.refreshFile(job, done: done)
    }

    func exportFiles(_ job: DownloadJob, plan: DownloadPlan, then done: @escaping (Result<[ExportFile], DownloadInputError>) -> Void) {
        engine.exportFile(job, then: done)
    }

    /// While a new version is staged the old one is whole (only a whole file is refreshed).
    func playableOffline(_ job: DownloadJob, plan: DownloadPlan, complete: Set<Int>) -> Bool { job.allStored || job.staging }

    func offlineURL(_ job: DownloadJob) -> String { engine.exportOfflineURL(job) }

    var cutsManifestOffline: Bool { false }
}
