import EddyCore
import EddyHLS

/// What the downloads hold for offline playback, published by the engine (main loop) for the
/// exchanges of every loop: the renditions each multivariant playlist's downloads hold whole,
/// and the recordings of live media playlists. The engine replaces it at every change of a job
/// (`DownloadEngine.changed`), so an exchange on any loop reads what the engine last decided.
package final class OfflineCatalog: @unchecked Sendable {
    private struct Tables {
        /// Rendition URLs held whole, by multivariant playlist URL.
        var renditions: [String: Set<String>] = [:]
        /// The longest recording of each live media playlist, by URL.
        var recordings: [String: LiveRecording] = [:]
    }
    private let tables = Locked(Tables())

    package init() {}

    /// URLs of the renditions that downloads of the playlist at `master` hold whole; nil when no
    /// download is of it (the playlist is then served as it is).
    package func completeRenditions(of master: UpstreamURL) -> Set<String>? {
        tables.withLock { $0.renditions[master.description] }
    }

    /// The recording a download made of the live media playlist at `url` (EVENT while it grows,
    /// VOD once ended); nil when none did.
    package func recordedPlaylist(of url: UpstreamURL) -> String? {
        tables.withLock { $0.recordings[url.description] }?.text
    }

    /// Replaces what is published.
    func publish(renditions: [String: Set<String>], recordings: [String: LiveRecording]) {
        tables.withLock { $0 = Tables(renditions: renditions, recordings: recordings) }
    }
}
