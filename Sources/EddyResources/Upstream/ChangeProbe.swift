import EddyCache
import EddyCore
import EddyLoop

/// Asks the origin whether the copy stored under `key` is still its current representation,
/// without touching the copy: one conditional request for one byte (`ValidatorCheck`), so an
/// unchanged file costs a 304 and a changed one a byte, never the file. A revalidation through
/// the coordinator would replace a changed copy at once; a download's refresh must keep it until
/// the new version is whole. Like every upstream request it passes the curl driver's gate. Runs
/// on the key's home and reports there, once.
package final class ChangeProbe {
    package enum Outcome: Equatable {
        case unchanged
        case changed(length: Int?)
        /// Nothing is stored under the key (purged since): there is no copy to compare.
        case notStored
        case failed(String, status: Int?)
    }

    private let coordinators: Coordinators
    private let url: UpstreamURL
    private let key: String
    private let checkAddress: Bool
    private var onDone: ((Outcome) -> Void)?
    private var transfer: UpstreamTransfer?
    private var verdict: Outcome?
    /// Held while running: the transfer's closures hold it weakly.
    private var keepAlive: ChangeProbe?

    package init(coordinators: Coordinators, url: UpstreamURL, key: String, checkAddress: Bool, onDone: @escaping (Outcome) -> Void) {
        (self.coordinators, self.url, self.key, self.checkAddress, self.onDone) = (coordinators, url, key, checkAddress, onDone)
    }

    package func start() {
        guard let r = coordinators.cache.lookup(key, now: coordinators.loop.wallClock()), r.meta.status != 0 else {
            return finish(.notStored)
        }
        let check = ValidatorCheck(etag: r.meta.etag, lastModified: r.meta.lastModified, length: r.meta.length, contentType: r.meta.contentType)
        let upstream = coordinators.upstream
        var request = upstream.request(url, checkAddress: checkAddress, userAgent: nil, range: .span(first: 0, last: 0), key: key)
        if let c = check.condition { request.headers.set(c.name, c.value) }
        // Ask the origin, not a parent's stored copy (RFC 9111 section 5.2.1.4).
        request.headers.set("Cache-Control", "no-cache")
        let t = upstream.transfer(for: request)
        keepAlive = self
        t.onHead = { [weak self] head in
            switch check.verdict(status: head.status, headers: head.headers) {
            case .unchanged: self?.verdict = .unchanged
            case let .changed(length): self?.verdict = .changed(length: length)
            case let .failed(status): self?.verdict = .failed("origin answered \(status)", status: status)
            case let .otherType(type):
                self?.verdict = .failed("origin answered with \(type), not the file's type (a captive portal?); the held version is kept", status: head.status)
            }
            return false // the body is not wanted
        }
        t.onData = { _ in .abort }
        t.onComplete = { [weak self] error in
            guard let self else { return }
            finish(verdict ?? .failed(error.map { "\($0)" } ?? "no answer", status: nil))
        }
        transfer = t
        t.start()
    }

    private func finish(_ outcome: Outcome) {
        let cb = onDone
        onDone = nil
        transfer = nil
        cb?(outcome)
        keepAlive = nil
    }
}
