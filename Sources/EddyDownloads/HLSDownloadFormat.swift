import EddyCore

/// HLS (RFC 8216bis): the multivariant playlist, the selection over its variants and renditions,
/// the selected media playlists' units; refresh by the selection made anew; export as an HLS
/// folder; offline at `/_eddy/offline/ID/` and at the usual URL with the master cut down.
final class HLSDownloadFormat: DownloadFormat {
    unowned let engine: DownloadEngine
    init(_ engine: DownloadEngine) { self.engine = engine }

    func check(_ spec: DownloadSpec, url: UpstreamURL, checkAddress: Bool, done: @escaping (DownloadInputError?) -> Void) {
        engine.checkSelection(spec, url: url, checkAddress: checkAddress, done: done)
    }

    func buildPlan(_ job: DownloadJob, fetch: Bool) { engine.buildHLSPlan(job, fetch: fetch) }

    func refresh(_ job: DownloadJob, done: @escaping (Result<RefreshReport, DownloadInputError>) -> Void) {
        engine.refreshHLS(job, done: done)
    }

    func exportFiles(_ job: DownloadJob, plan: DownloadPlan, then done: @escaping (Result<[ExportFile], DownloadInputError>) -> Void) {
        engine.exportHLS(job, plan: plan, then: done)
    }

    func playableOffline(_ job: DownloadJob, plan: DownloadPlan, complete: Set<Int>) -> Bool {
        engine.hlsPlayableOffline(job, plan: plan, complete: complete)
    }

    func offlineURL(_ job: DownloadJob) -> String { engine.exportOfflineURL(job) }

    var cutsManifestOffline: Bool { true }
}
