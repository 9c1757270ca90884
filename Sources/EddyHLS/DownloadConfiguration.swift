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
        for part in auxiliaryParts(text) {
            switch part.kind {
            case .audio: c.audio = list(part.text)
            case .subtitles: c.subtitles = list(part.text)
            case .variantIndex:
                guard let n = Int(part.text.trimmingOWS()), n >= 0 else { throw PredicateSyntaxError("variant-index needs a number", at: part.offset) }
                c.variantIndex = n
            case .predicate:
                do {
                    c.qualifiers.append(try VariantQualifier.parse(String(part.text)))
                } catch {
                    throw PredicateSyntaxError(error.message, at: part.offset + error.position)
                }
            }
        }
        return c
    }

    /// The variant predicates of an auxiliary configuration's text, as written (what the API's
    /// `auxiliary[].variant` takes).
    public static func auxiliaryPredicates(_ text: String) -> [String] {
        auxiliaryParts(text).filter { $0.kind == .predicate }.map { String($0.text.trimmingOWS()) }
    }

    private enum PartKind { case audio, subtitles, variantIndex, predicate }

    /// The non-empty `;`-separated parts, classified, each with its value and its offset in `text`.
    private static func auxiliaryParts(_ text: String) -> [(kind: PartKind, text: Substring, offset: Int)] {
        var out: [(PartKind, Substring, Int)] = []
        var offset = 0
        for part in text.split(separator: ";", omittingEmptySubsequences: false) {
            defer { offset += part.count + 1 }
            let p = part.trimmingOWS()
            if p.isEmpty { continue }
            if let v = value(of: "audio", p) { out.append((.audio, v, offset)) }
            else if let v = value(of: "subtitles", p) { out.append((.subtitles, v, offset)) }
            else if let v = value(of: "variant-index", p) { out.append((.variantIndex, v, offset)) }
            else { out.append((.predicate, part, offset)) }
        }
        return out
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
