import EddyCache
import EddyCore
import EddyHLS
import EddyLoop
import EddyResources
import Foundation
import Logging

extension DownloadEngine {
    func restore() {
        guard let database else { return }
        let rows: [(id: String, record: String)]
        do { rows = try database.all() } catch {
            logger.error("cannot read download jobs", metadata: ["error": "\(error)"])
            return
        }
        for row in rows {
            guard let r = try? JSONDecoder().decode(Record.self, from: Data(row.record.utf8)),
                  case let .success(t) = target(for: r.spec.url) else {
                logger.error("dropping an unreadable download job", metadata: ["id": "\(row.id)"])
                continue
            }
            let job = DownloadJob(id: row.id, spec: r.spec, url: t.0, checkAddress: t.1, kind: r.kind ?? .hls, createdAt: r.createdAt,
                                  machine: DownloadJobStateMachine(restoring: r.state, failure: r.failure, reason: r.reason,
                                                                           retries: settings.retries),
                                  concurrency: settings.concurrency)
            job.completedAt = r.completedAt
            job.hasArtwork = r.artwork == true
            job.keptRenditions = r.kept ?? []
            job.staging = r.staging == true
            job.restoredComplete = Set(r.complete ?? [])
            job.floor.bytesDone = r.bytesDone
            job.floor.segmentsDone = r.segmentsDone
            job.floor.mediaSecondsDone = r.mediaSecondsDone
            for (url, f) in r.renditions ?? [:] {
                job.renditionFloors[url] = DownloadProgress(segmentsDone: f.segmentsDone, bytesDone: f.bytesDone, mediaSecondsDone: f.mediaSecondsDone)
            }
            if let headers = r.recordings { restoreRecordings(job, headers) }
            jobs.append(job)
        }
        removedIDs = (try? database.removed()) ?? []
        if !jobs.isEmpty { logger.info("download jobs restored", metadata: ["count": "\(jobs.count)"]) }
        publishCatalog() // what they held, before any request is answered
        kick.schedule(after: 0)
    }

    /// Reads a job's recordings back: headers from its record, segments from their table.
    func restoreRecordings(_ job: DownloadJob, _ headers: [String: LiveRecording.Header]) {
        let rows = (try? database?.recorded(job: job.id)) ?? [:]
        let decoder = JSONDecoder()
        for (key, header) in headers {
            guard let u = UpstreamURL.parse(Substring(key)) else { continue }
            let segments = (rows[key] ?? []).compactMap { try? decoder.decode(RecordedSegment.self, from: Data($0.utf8)) }
            job.recordings[u] = LiveRecording(header: header, segments: segments)
        }
        job.lastGrowth = EventLoop.monotonic()
    }
}
