import EddyCore
import EddyDASH
import EddyHLS
import EddyResources
@testable import EddyDownloads
import XCTest

/// DASH tracks under the selection language, and the plan of what a DASH download fetches.
final class DashPlanTests: XCTestCase {
    let url = UpstreamURL.parse("http://o.example/a/m.mpd")!
    let mpd = """
    <MPD mediaPresentationDuration="PT4S"><Period duration="PT2S"><AdaptationSet contentType="video" codecs="avc1.64001f">
    <SegmentTemplate timescale="1" duration="2" startNumber="1" media="$RepresentationID$-$Number$.m4s" initialization="$RepresentationID$-init.mp4"/>
    <Representation id="hi" bandwidth="3000000" width="1280" height="720" frameRate="30000/1001"/>
    <Representation id="lo" bandwidth="500000" width="640" height="360"/></AdaptationSet>
    <AdaptationSet contentType="audio" lang="en"><SegmentTemplate duration="2" media="en-$Number$.m4s"/><Representation id="en" bandwidth="64000"/></AdaptationSet>
    <AdaptationSet contentType="audio" lang="fr"><ContentProtection schemeIdUri="urn:x"/>
    <SegmentTemplate duration="2" media="fr-$Number$.m4s"/><Representation id="fr" bandwidth="64000"/></AdaptationSet></Period>
    <Period><AdaptationSet contentType="video"><SegmentTemplate duration="2" startNumber="2" media="p2-$RepresentationID$-$Number$.m4s"/>
    <Representation id="lo" bandwidth="500000" width="640" height="360"/></AdaptationSet></Period></MPD>
    """

    private func tracks() throws -> DashTracks {
        DashTracks(try MPDDocument(Array(mpd.utf8)).manifest(documentURL: url.description, resolve: Playlists.upstreamResolve))
    }

    func test_tracks_areRepresentationsAcrossPeriods_describedForSelection() throws {
        let t = try tracks()
        XCTAssertEqual(t.tracks.map(\.id), ["hi", "lo", "en", "fr"])
        XCTAssertEqual(t.tracks[1].periods.count, 2, "the same id in the next period is the same track")
        XCTAssertTrue(t.isProtected)
        let v = t.playlist.variants
        XCTAssertEqual(v.map(\.bandwidth), [3_000_000, 500_000])
        XCTAssertEqual(v.map(\.height), [720, 360])
        XCTAssertEqual(v[0].frameRate ?? 0, 29.97, accuracy: 0.01)
    }

    func test_selection_heightAndFrenchAudio_pickThoseTracks() throws {
        let t = try tracks()
        let c = DownloadConfiguration(qualifiers: [try VariantQualifier.parse("height <= 480")], audio: ["fr"])
        let s = try AssetSelector.select(t.playlist, primary: c)
        XCTAssertEqual(s.renditions.compactMap { t.track(of: $0)?.id }, ["lo", "fr"])
    }

    func test_plan_mpdFirst_initsThenSegmentsByMediaTime() throws {
        let t = try tracks()
        let c = DownloadConfiguration(qualifiers: [try VariantQualifier.parse("height <= 480")], audio: ["fr"])
        let plan = DownloadPlan.dash(url: url, tracks: t, selection: try AssetSelector.select(t.playlist, primary: c).renditions)
        XCTAssertEqual(plan.units.map { "\($0.kind.rawValue) \($0.url.pathAndQuery)" }, [
            "playlist /a/m.mpd", "map /a/lo-init.mp4", "segment /a/lo-1.m4s", "segment /a/fr-1.m4s", "segment /a/p2-lo-2.m4s",
        ])
        XCTAssertEqual(plan.units.map(\.start), [0, 0, 0, 0, 2])
        XCTAssertEqual(plan.renditions.map(\.url.description),
                       ["http://o.example/a/m.mpd#representation=lo", "http://o.example/a/m.mpd#representation=fr"])
        XCTAssertEqual(plan.renditions.map(\.segments), [2, 1])
        XCTAssertEqual(plan.keys, "drm, not downloadable")
    }

    func test_trackURL_percentEncodesTheId() {
        XCTAssertEqual(Playlists.dashTrackURL(of: "v 1/é", in: url).description, "http://o.example/a/m.mpd#representation=v%201%2F%C3%A9")
    }

    func test_descriptors_mapToVideoRangeChannelsAndCharacteristics() throws {
        let xml = """
        <MPD mediaPresentationDuration="PT2S"><Period><AdaptationSet contentType="video">
        <SegmentTemplate duration="2" media="$RepresentationID$-$Number$.m4s"/>
        <Representation id="pq" bandwidth="9000000" height="2160"><SupplementalProperty schemeIdUri="urn:mpeg:mpegB:cicp:TransferCharacteristics" value="16"/></Representation>
        <Representation id="sdr" bandwidth="5000000" height="1080"><EssentialProperty schemeIdUri="urn:mpeg:mpegB:cicp:TransferCharacteristics" value="1"/></Representation>
        </AdaptationSet>
        <AdaptationSet contentType="audio" lang="en"><AudioChannelConfiguration schemeIdUri="urn:mpeg:mpegB:cicp:ChannelConfiguration" value="6"/>
        <SegmentTemplate duration="2" media="a51-$Number$.m4s"/><Representation id="a51" bandwidth="384000"/></AdaptationSet>
        <AdaptationSet contentType="audio" lang="en"><Role schemeIdUri="urn:mpeg:dash:role:2011" value="description"/>
        <SegmentTemplate duration="2" media="ad-$Number$.m4s"/><Representation id="ad" bandwidth="64000">
        <AudioChannelConfiguration schemeIdUri="urn:mpeg:dash:23003:3:audio_channel_configuration:2011" value="2"/></Representation></AdaptationSet>
        </Period></MPD>
        """
        let t = DashTracks(try MPDDocument(Array(xml.utf8)).manifest(documentURL: url.description, resolve: Playlists.upstreamResolve))
        XCTAssertEqual(t.playlist.variants.map(\.videoRange), ["PQ", "SDR"])
        XCTAssertEqual(t.playlist.renditions.map(\.channels), ["6", "2"])
        XCTAssertEqual(t.playlist.renditions.last?.characteristics, ["public.accessibility.describes-video"])
        let pick = { (q: String) in
            try AssetSelector.select(t.playlist, primary: DownloadConfiguration(qualifiers: [try VariantQualifier.parse(q)]))
                .renditions.compactMap { t.track(of: $0)?.id }
        }
        XCTAssertEqual(try pick("videoRange == SDR"), ["sdr", "a51"])
        XCTAssertEqual(try pick("videoRange == PQ")[0], "pq")
    }
}
