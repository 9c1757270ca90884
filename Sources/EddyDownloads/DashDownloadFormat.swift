import EddyCore

/// MPEG-DASH: the MPD, the selection over its representations (`DashTracks`), the selected
/// tracks' initialization and media segments; offline at eddy's own URL for the MPD, cut down to
/// the representations held whole. Refresh and export are not built for it yet (409).
final class DashDownloadFormat: DownloadFormat {
    unowned let engine: DownloadEngine
    init(_ engine: DownloadEngine) { self.engine = engine }

    func check(_ spec: DownloadSpec, url: UpstreamURL, checkAddress: Bool, done: @escaping (DownloadInputError?) -> Void) {
        engine.checkDashSelection(spec, url: url, checkAddress: checkAddress, done: done)
    }

    func buildPlan(_ job: DownloadJob, fetch: Bool) { engine.buildDashPlan(job, fetch: fetch) }

    func refresh(_ job: DownloadJob, done: @escaping (Result<RefreshReport, DownloadInputError>) -> Void) {
        done(.failure(DownloadInputError("refresh is not available for DASH downloads yet", status: 409)))
    }

    func exportFiles(_ job: DownloadJob, plan: DownloadPlan, then done: @escaping (Result<[ExportFile], DownloadInputError>) -> Void) {
        done(.failure(DownloadInputError("export is not available for DASH downloads yet", status: 409)))
    }

    /// The MPD stored, and a track held whole (offline, the MPD lists those only).
    func playableOffline(_ job: DownloadJob, plan: DownloadPlan, complete: Set<Int>) -> Bool {
        job.units.done.first == true && !complete.isEmpty
    }

    /// eddy's own URL for the MPD (the mapped form when an origin is mapped for it).
    func offlineURL(_ job: DownloadJob) -> String {
        let target = engine.resolver.eddyTarget(for: job.url, form: .mapped) ?? "/" + job.url.description
        return engine.selfAuthority.baseURL() + (target.hasPrefix("/") ? target : "/" + target)
    }

    var cutsManifestOffline: Bool { true }
}
