import EddyCore
import EddyHLS

/// What `POST /api/downloads` asks for, as its JSON body says it (the field names are fixed:
/// scripts rely on them). `variant` is a predicate (see `VariantPredicate`), `audio` and
/// `subtitles` media selections (see `RenditionChoice`), `auxiliary` further configurations
/// downloaded in addition (AVAssetDownloadConfiguration's auxiliaryConfigurations).
public struct DownloadSpec: Codable, Equatable, Sendable {
    public var url: String
    public var title: String?
    public var variant: String?
    public var variantIndex: Int?
    public var audio: [String]?
    public var subtitles: [String]?
    public var auxiliary: [Auxiliary]?
    /// `normal` (the default) or `important`; see `DownloadPolicy`.
    public var priority: String?
    /// When the download is released: a duration from its creation or a date; see `DownloadPolicy`.
    public var expires: String?
    /// For a live or EVENT playlist: the media time to record (`20s`, `30m`, `2h`, or seconds);
    /// without it, the recording runs until the origin ends it (EXT-X-ENDLIST).
    public var duration: String?
    /// When it may run, in local time (`01:00-06:00`, crossing midnight if need be); without it,
    /// the config's `download_window`, else any time. See `DownloadWindow`.
    public var window: String?
    /// The most bytes a second it may fetch (`2M`, `500K`, or bytes; K = 1024), besides the
    /// config's `download_rate_limit` for all downloads; without it, no limit of its own.
    public var rate: String?
    /// Artwork to show with it (AVFoundation's assetArtworkData): a `data:` URI (base64) or a URL
    /// eddy may fetch, of a PNG or JPEG of at most 1 MiB.
    public var artwork: String?

    /// One auxiliary configuration.
    public struct Auxiliary: Codable, Equatable, Sendable {
        public var variant: String?
        public var variantIndex: Int?
        public var audio: [String]?
        public var subtitles: [String]?

        enum CodingKeys: String, CodingKey {
            case variant, audio, subtitles
            case variantIndex = "variant_index"
        }

        public init(variant: String? = nil, variantIndex: Int? = nil, audio: [String]? = nil, subtitles: [String]? = nil) {
            self.variant = variant
            self.variantIndex = variantIndex
            self.audio = audio
            self.subtitles = subtitles
        }
    }

    enum CodingKeys: String, CodingKey {
        case url, title, variant, audio, subtitles, auxiliary, priority, expires, duration, window, rate, artwork
        case variantIndex = "variant_index"
    }

    public init(url: String, title: String? = nil, variant: String? = nil, variantIndex: Int? = nil,
                audio: [String]? = nil, subtitles: [String]? = nil, auxiliary: [Auxiliary]? = nil,
                priority: String? = nil, expires: String? = nil, duration: String? = nil, window: String? = nil, rate: String? = nil, artwork: String? = nil) {
        self.rate = rate
        self.artwork = artwork
        self.duration = duration
        self.window = window
        self.priority = priority
        self.expires = expires
        self.url = url
        self.title = title
        self.variant = variant
        self.variantIndex = variantIndex
        self.audio = audio
        self.subtitles = subtitles
        self.auxiliary = auxiliary
    }

    /// The keeping policy of a job created at `createdAt`.
    public func policy(createdAt: Int) throws(DownloadInputError) -> DownloadPolicy {
        try DownloadPolicy.parse(priority: priority, expires: expires, createdAt: createdAt)
    }

    /// The window asked for, checked: nil when none was.
    public func downloadWindow() throws(DownloadInputError) -> DownloadWindow? {
        guard let window else { return nil }
        guard let w = DownloadWindow.parse(window) else {
            throw DownloadInputError("window: '\(window)' is not a window of local time like 01:00-06:00")
        }
        return w
    }

    /// The rate asked for in bytes a second, checked: nil when none was.
    public func rateLimit() throws(DownloadInputError) -> Int? {
        guard let rate else { return nil }
        guard let n = ByteSize.parse(rate), n > 0 else {
            throw DownloadInputError("rate: '\(rate)' is not a rate in bytes a second like 2M or 500K")
        }
        return n
    }

    /// Seconds of media a live recording keeps; nil: until the origin ends the presentation.
    public func recordingLimit() throws(DownloadInputError) -> Double? {
        guard let duration else { return nil }
        guard let s = DownloadPolicy.duration(duration), s > 0 else {
            throw DownloadInputError("duration: '\(duration)' is not a positive duration (like 20s, 30m, 2h)")
        }
        return Double(s)
    }

    /// Options that only an HLS download has, named in a 400 when given for a file download.
    public var fileOptionsError: DownloadInputError? {
        let named = [("variant", variant != nil), ("variant_index", variantIndex != nil), ("audio", audio != nil),
                     ("subtitles", subtitles != nil), ("auxiliary", auxiliary != nil), ("duration", duration != nil)]
            .filter(\.1).map(\.0)
        guard !named.isEmpty else { return nil }
        return DownloadInputError("\(named.joined(separator: ", ")): only for HLS downloads, and \(url) is not an HLS playlist")
    }

    /// The primary and auxiliary configurations; a malformed predicate or media selection is an
    /// error naming the field and the position.
    public func configurations() throws(DownloadInputError) -> (primary: DownloadConfiguration, auxiliary: [DownloadConfiguration]) {
        let primary = try DownloadSpec.configuration("", variant, variantIndex, audio, subtitles)
        var aux: [DownloadConfiguration] = []
        for (i, a) in (auxiliary ?? []).enumerated() {
            aux.append(try DownloadSpec.configuration("auxiliary[\(i)].", a.variant, a.variantIndex, a.audio, a.subtitles))
        }
        return (primary, aux)
    }

    private static func configuration(_ field: String, _ variant: String?, _ index: Int?, _ audio: [String]?,
                                      _ subtitles: [String]?) throws(DownloadInputError) -> DownloadConfiguration {
        var c = DownloadConfiguration(variantIndex: index, audio: audio, subtitles: subtitles)
        if let index, index < 0 { throw DownloadInputError("\(field)variant_index must be 0 or more") }
        if let variant, !variant.isEmpty {
            do { c.qualifiers = [try VariantQualifier.parse(variant)] } catch {
                throw DownloadInputError("\(field)variant: \(error.message) at position \(error.position)")
            }
        }
        for (name, list) in [("audio", audio), ("subtitles", subtitles)] {
            for item in list ?? [] where item.lowercased() != "all" && item.lowercased() != "none" && RenditionChoice(item) == nil {
                throw DownloadInputError("\(field)\(name): '\(item)' is not a language, name:, char: or channels: selection")
            }
        }
        return c
    }
}

/// Input a download cannot start from: answered with `status` (400, or 502 when the origin
/// failed rather than the input) and this one line, and nothing is created.
public struct DownloadInputError: Error, Equatable, CustomStringConvertible, Sendable {
    public var description: String
    public var status: Int
    /// Seconds the origin asked to wait (Retry-After), when the failure was its refusal.
    public var retryAfter: Double?
    public init(_ description: String, status: Int = 400, retryAfter: Double? = nil) {
        self.description = description
        self.status = status
        self.retryAfter = retryAfter
    }
}
