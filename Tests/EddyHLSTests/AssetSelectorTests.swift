import EddyHLS
import Foundation
import XCTest

/// The golden table: playlist × configuration → the media playlists a download fetches, over the
/// shared corpus and the shape of the project's own fixture asset (Tests/Scenarios/make_hls.py).
final class AssetSelectorTests: XCTestCase {
    /// Three AVC variants and one HEVC PQ, a stereo group (en, fr), a 6-channel group (en)
    /// referenced by variants that share the stereo variants' video playlists, en and fr subtitles.
    static let fixture = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="stereo",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="audio/en/index.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="stereo",NAME="Français",LANGUAGE="fr",DEFAULT=NO,AUTOSELECT=YES,CHANNELS="2",URI="audio/fr/index.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="surround",NAME="English 5.1",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="6",URI="audio/en51/index.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",DEFAULT=NO,AUTOSELECT=YES,URI="subs/en/index.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Français",LANGUAGE="fr",DEFAULT=NO,AUTOSELECT=YES,URI="subs/fr/index.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=600000,AVERAGE-BANDWIDTH=500000,CODECS="avc1.64001e,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=25,AUDIO="stereo",SUBTITLES="subs"
        video/360/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=1500000,AVERAGE-BANDWIDTH=1200000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=25,AUDIO="stereo",SUBTITLES="subs"
        video/720/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=3000000,AVERAGE-BANDWIDTH=2500000,CODECS="avc1.640028,mp4a.40.2",RESOLUTION=1920x1080,FRAME-RATE=25,AUDIO="stereo",SUBTITLES="subs"
        video/1080/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=4000000,AVERAGE-BANDWIDTH=3300000,CODECS="hvc1.2.4.L123.B0,mp4a.40.2",RESOLUTION=1920x1080,FRAME-RATE=25,VIDEO-RANGE=PQ,AUDIO="stereo",SUBTITLES="subs"
        video/1080pq/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=1900000,AVERAGE-BANDWIDTH=1600000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=25,AUDIO="surround",SUBTITLES="subs"
        video/720/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=3400000,AVERAGE-BANDWIDTH=2900000,CODECS="avc1.640028,mp4a.40.2",RESOLUTION=1920x1080,FRAME-RATE=25,AUDIO="surround",SUBTITLES="subs"
        video/1080/index.m3u8
        """

    struct Case {
        var playlist: String
        var primary: DownloadConfiguration
        var aux: [String] = []
        var locale: String?
        var expected: [String]
    }

    func corpus(_ name: String) throws -> String {
        try String(contentsOf: HLSPlaylistTests.corpus.appendingPathComponent(name), encoding: .utf8)
    }

    func q(_ texts: String...) -> [VariantQualifier] { texts.map { try! VariantQualifier.parse($0) } }

    func test_goldenTable() throws {
        let hevc = try corpus("master-adv-example-hevc.m3u8")
        let v7 = try corpus("master-with-hlsv7.m3u8")
        let ccNone = try corpus("master-with-closed-captions-eq-none.m3u8")
        let alt = try corpus("master-with-alternatives-b.m3u8")
        let cases: [Case] = [
            // Fixture. No qualifier: the highest peak bit rate with video; DEFAULT audio; no default subtitles.
            Case(playlist: Self.fixture, primary: .init(), expected: ["video/1080pq/index.m3u8", "audio/en/index.m3u8"]),
            // The locale adds its language's autoselectable audio and subtitles.
            Case(playlist: Self.fixture, primary: .init(), locale: "fr_FR.UTF-8",
                 expected: ["video/1080pq/index.m3u8", "audio/en/index.m3u8", "audio/fr/index.m3u8", "subs/fr/index.m3u8"]),
            // Apple's rule: the first qualifier matching any variant, then the highest peak bit rate.
            Case(playlist: Self.fixture, primary: .init(qualifiers: q("videoRange == HLG", "videoRange == SDR")),
                 expected: ["video/1080/index.m3u8", "audio/en51/index.m3u8"]),
            Case(playlist: Self.fixture, primary: .init(qualifiers: q("height <= 720 && channels <= 2")),
                 expected: ["video/720/index.m3u8", "audio/en/index.m3u8"]),
            Case(playlist: Self.fixture, primary: .init(qualifiers: q("height <= 720 lowest")),
                 expected: ["video/360/index.m3u8", "audio/en/index.m3u8"]),
            Case(playlist: Self.fixture, primary: .init(variantIndex: 1, audio: ["all"], subtitles: ["en"]),
                 expected: ["video/720/index.m3u8", "audio/en/index.m3u8", "audio/fr/index.m3u8", "subs/en/index.m3u8"]),
            Case(playlist: Self.fixture, primary: .init(qualifiers: q("videoRange == PQ"), audio: ["fr"], subtitles: ["none"]),
                 expected: ["video/1080pq/index.m3u8", "audio/fr/index.m3u8"]),
            // An auxiliary whose video playlist is the primary's adds only its audio.
            Case(playlist: Self.fixture, primary: .init(qualifiers: q("videoRange == SDR && channels <= 2")), aux: ["channels >= 6; audio=en"],
                 expected: ["video/1080/index.m3u8", "audio/en/index.m3u8", "audio/en51/index.m3u8"]),
            // One whose video differs adds its video too.
            Case(playlist: Self.fixture, primary: .init(qualifiers: q("videoRange == PQ")), aux: ["channels >= 6"],
                 expected: ["video/1080pq/index.m3u8", "audio/en/index.m3u8", "video/1080/index.m3u8", "audio/en51/index.m3u8"]),
            // Corpus: Apple's HEVC example (one video playlist per rung, three audio groups, default subtitles).
            Case(playlist: hevc, primary: .init(), expected: ["v9/prog_index.m3u8", "a2/prog_index.m3u8", "s1/en/prog_index.m3u8"]),
            Case(playlist: hevc, primary: .init(qualifiers: q("audioCodec == mp4a && videoCodec == hvc1 && height <= 720")),
                 expected: ["v15/prog_index.m3u8", "a1/prog_index.m3u8", "s1/en/prog_index.m3u8"]), // 1280x720 HEVC
            Case(playlist: hevc, primary: .init(qualifiers: q("audioCodec == mp4a && videoCodec == avc1"), subtitles: ["none"]),
                 aux: ["audioCodec == ec-3 && videoCodec == avc1; subtitles=none"],
                 expected: ["v9/prog_index.m3u8", "a1/prog_index.m3u8", "a3/prog_index.m3u8"]),
            // Corpus: HDR tiers by range, codec and HDCP.
            Case(playlist: v7, primary: .init(qualifiers: q("videoRange == PQ && videoCodec == dvh1 && height <= 1080")),
                 expected: ["dolby_1080/prog_index.m3u8"]),
            Case(playlist: v7, primary: .init(qualifiers: q("hdcp == NONE")), expected: ["dolby_720/prog_index.m3u8"]),
            Case(playlist: v7, primary: .init(qualifiers: q("videoRange in [SDR] lowest")), expected: ["sdr_720/prog_index.m3u8"]),
            // Corpus: three-letter languages match a two-letter locale; CLOSED-CAPTIONS=NONE.
            Case(playlist: ccNone, primary: .init(), locale: "en_US.UTF-8",
                 expected: ["3_rendition.m3u8", "audio_128_fra_rendition.m3u8", "audio_128_eng_rendition.m3u8", "subtitle_eng_rendition.m3u8"]),
            Case(playlist: ccNone, primary: .init(qualifiers: q("height < 480"), audio: ["eng"]),
                 expected: ["1_rendition.m3u8", "audio_64_eng_rendition.m3u8"]),
            // Corpus: variants without CODECS or RESOLUTION, and an audio-only one.
            Case(playlist: alt, primary: .init(), expected: ["hi/main/audio-video.m3u8"]),
            Case(playlist: alt, primary: .init(qualifiers: q("audioCodec == mp4a")), expected: ["main/audio-only.m3u8"]),
        ]
        for (i, c) in cases.enumerated() {
            let aux = try c.aux.map { try DownloadConfiguration.parseAuxiliary($0) }
            let s = try AssetSelector.select(MultivariantPlaylist(c.playlist), primary: c.primary, auxiliary: aux, locale: c.locale)
            XCTAssertEqual(s.uris, c.expected, "case \(i)")
        }
    }

    func test_audioOnlyVariant_isTypedAudio() throws {
        let s = try AssetSelector.select(MultivariantPlaylist(try corpus("master-with-alternatives-b.m3u8")),
                                         primary: .init(qualifiers: q("audioCodec == mp4a")))
        XCTAssertEqual(s.renditions.first?.type, .audio)
        XCTAssertEqual(s.renditions.first?.variantIndex, 3)
    }

    func test_selectionsThatMatchNothing_areErrorsListingWhatExists() {
        let p = MultivariantPlaylist(Self.fixture)
        let cases: [(DownloadConfiguration, [String], String)] = [
            (.init(audio: ["de"]), [], #"matches 'de'; it has: en "English" 2ch, fr "Français" 2ch"#),
            (.init(subtitles: ["name:Director"]), [], #"it has: en "English", fr "Français""#),
            (.init(qualifiers: q("peakBitRate > 100M")), [], "no variant matches the primary configuration's qualifiers; the variants are: 0: 640x360"),
            (.init(variantIndex: 6), [], "there is no variant 6; the playlist has variants 0 to 5"),
            (.init(), ["videoRange == HLG"], "auxiliary configuration 1's qualifiers"),
            (.init(audio: ["channels:x"]), [], "'channels:x' is not a audio selection"),
        ]
        for (primary, aux, message) in cases {
            XCTAssertThrowsError(try AssetSelector.select(p, primary: primary, auxiliary: aux.map { try! DownloadConfiguration.parseAuxiliary($0) })) { e in
                XCTAssertTrue("\(e)".contains(message), "\(e)\n  does not contain: \(message)")
            }
        }
        XCTAssertThrowsError(try AssetSelector.select(MultivariantPlaylist("#EXTM3U\n#EXTINF:4,\na.ts\n"), primary: .init())) { e in
            XCTAssertTrue("\(e)".contains("no variant streams"))
        }
    }

    func test_auxiliarySpec_errorsPointIntoTheWholeText() {
        XCTAssertThrowsError(try DownloadConfiguration.parseAuxiliary("audio=en; height <=")) { e in
            XCTAssertEqual((e as! PredicateSyntaxError).position, 19)
        }
        XCTAssertEqual(try DownloadConfiguration.parseAuxiliary("variant-index=2; subtitles = en, fr").subtitles, ["en", "fr"])
    }

    func test_auxiliaryPredicates_areThePartsParseAuxiliaryReadsAsQualifiers() {
        let text = "audioCodec == mp4a ; audio=en; channels >= 6 lowest; variant-index=1"
        XCTAssertEqual(DownloadConfiguration.auxiliaryPredicates(text), ["audioCodec == mp4a", "channels >= 6 lowest"])
        XCTAssertEqual(try DownloadConfiguration.parseAuxiliary(text).qualifiers.count, 2)
        XCTAssertEqual(DownloadConfiguration.auxiliaryPredicates("audio=en"), [])
    }

    func test_localeLanguage() {
        XCTAssertEqual(AssetSelector.language(ofLocale: "fr_CA.UTF-8"), "fr")
        XCTAssertEqual(AssetSelector.language(ofLocale: "de_DE@euro"), "de")
        XCTAssertNil(AssetSelector.language(ofLocale: "C.UTF-8"))
        XCTAssertNil(AssetSelector.language(ofLocale: "POSIX"))
        XCTAssertTrue(RenditionChoice.languageMatches("en-US", "en"))
        XCTAssertFalse(RenditionChoice.languageMatches("en", "en-US"))
        XCTAssertTrue(RenditionChoice.languageMatches("fre", "fr_FR".split(separator: "_").map(String.init)[0]))
    }
}
