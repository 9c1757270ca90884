/// What to download of a multivariant asset, as AVAssetDownloadConfiguration says it: variant
/// qualifiers (the first that matches any variant wins) or a variant's index, and the audio and
/// subtitle renditions wanted. nil media selections mean automatic (see `AssetSelector`); `all`
/// takes every rendition of the group.
public struct DownloadConfiguration: Equatable, Sendable {
    public var qualifiers: [VariantQualifier] = []
    public var variantIndex: Int?
    public var audio: [String]?
    public var subtitles: [String]?

    public init(qualifiers: [VariantQualifier] = [], variantIndex: Int? = nil, audio: [String]? = nil, subtitles: [String]? = nil) {
        self.qualifiers = qualifiers
        self.variantIndex = variantIndex
        self.audio = audio
        self.subtitles = subtitles
    }

    /// Reads an auxiliary configuration from the command line: `;`-separated parts, each a
    /// variant predicate or `audio=L,..`, `subtitles=L,..` or `variant-index=N`, as in
    /// `channels >= 6; audio=en`.
    public static func parseAuxiliary(_ text: String) throws(PredicateSyntaxError) -> DownloadConfiguration {
        var c = DownloadConfiguration()
        var offset = 0
        for part in text.split(separator: ";", omittingEmptySubsequences: false) {
            defer { offset += part.count + 1 }
            let p = part.trimmingOWS()
            if p.isEmpty { continue }
            if let v = value(of: "audio", p) {
                c.audio = list(v)
            } else if let v = value(of: "subtitles", p) {
                c.subtitles = list(v)
            } else if let v = value(of: "variant-index", p) {
                guard let n = Int(v.trimmingOWS()), n >= 0 else { throw PredicateSyntaxError("variant-index needs a number", at: offset) }
                c.variantIndex = n
            } else {
                do {
                    c.qualifiers.append(try VariantQualifier.parse(String(part)))
                } catch {
                    throw PredicateSyntaxError(error.message, at: offset + error.position)
                }
            }
        }
        return c
    }

    private static func value(of key: String, _ part: Substring) -> Substring? {
        guard part.lowercased().hasPrefix(key) else { return nil }
        let rest = part.dropFirst(key.count).trimmingOWS()
        return rest.first == "=" ? rest.dropFirst() : nil
    }

    /// `fr, en` as a list; empty entries dropped.
    public static func list<S: StringProtocol>(_ text: S) -> [String] {
        text.split(separator: ",").map { String($0.trimmingOWS()) }.filter { !$0.isEmpty }
    }
}
