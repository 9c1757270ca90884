import EddyCore
import EddyDASH
import EddyHLS
import EddyResources

extension DownloadPlan {
    /// A plan for `selection` of the DASH tracks of the MPD at `url`: the MPD first, then each
    /// selected track's initialization segments, then the segments of every track ordered by
    /// media time (as for HLS). A rendition is named by `Playlists.dashTrackURL(of:in:)`, the identity its
    /// offline catalog entry and the offline MPD's filter share.
    static func dash(url: UpstreamURL, tracks: DashTracks, selection: [SelectedRendition]) -> DownloadPlan {
        var plan = DownloadPlan()
        var seen = Set<String>()
        func add(_ u: Unit) {
            guard seen.insert(u.id).inserted else { return }
            plan.units.append(u)
        }
        plan.isMultivariant = true
        plan.drm = tracks.isProtected
        add(Unit(url: url, kind: .playlist, name: url.pathAndQuery))
        var segments: [Unit] = []
        for s in selection {
            guard let track = tracks.track(of: s) else { continue }
            let index = plan.renditions.count
            var r = Rendition(selected: s, url: Playlists.dashTrackURL(of: track.id, in: url), bandwidth: track.first.bandwidth)
            for rep in track.periods {
                if let i = rep.initialization, let u = UpstreamURL.parse(Substring(i.url)) {
                    add(Unit(url: u, range: i.byteRange.map { $0.lowerBound..<($0.upperBound + 1) }, kind: .map, rendition: index,
                             name: u.pathAndQuery))
                }
                for seg in rep.segments {
                    guard let u = UpstreamURL.parse(Substring(seg.url)) else { continue }
                    segments.append(Unit(url: u, range: seg.byteRange.map { $0.lowerBound..<($0.upperBound + 1) }, kind: .segment,
                                         rendition: index, start: seg.start, duration: seg.duration, name: u.pathAndQuery))
                    r.segments += 1
                    r.mediaSeconds += seg.duration
                }
            }
            plan.renditions.append(r)
        }
        segments.sort { ($0.start, $0.rendition ?? 0) < ($1.start, $1.rendition ?? 0) }
        for s in segments { add(s) }
        return plan
    }
}
