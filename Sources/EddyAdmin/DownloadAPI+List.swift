import EddyDownloads
import EddyLoop
import Foundation

extension DownloadAPI {
    /// The most items one list may hold (one request body; a longer list is split by the client).
    static let maxListItems = 1000

    /// `POST /api/downloads` with a JSON array: each item is added as a single spec would be, one
    /// after the other (each probes its URL; the origin is not asked for a thousand at once), and
    /// the answer is 200 with each item's outcome in order. A bad item creates nothing for itself
    /// and does not stop the rest.
    func addList(_ request: ServerRequest, _ items: [LenientSpec]) {
        guard items.count <= DownloadAPI.maxListItems else {
            return error(request, 400, "a list holds at most \(DownloadAPI.maxListItems) items (this one \(items.count))")
        }
        var results: [DownloadListItem] = []
        func next() {
            guard results.count < items.count else { return send(request, 200, results) }
            switch items[results.count].spec {
            case let .failure(e):
                results.append(DownloadListItem(status: e.status, error: e.description))
                next()
            case let .success(spec):
                engine.add(spec) { result in
                    switch result {
                    case let .success(job): results.append(DownloadListItem(status: 201, url: spec.url, id: job.id))
                    case let .failure(e): results.append(DownloadListItem(status: e.status, url: spec.url, error: e.description))
                    }
                    next()
                }
            }
        }
        next()
    }
}
