/// One entry of a media selection (`--audio fr,en`, `--subtitles en`): a language (matching by
/// RFC 5646 prefix: `en` takes `en-US`), or `name:`, `char:` (a CHARACTERISTICS UTI) or
/// `channels:` followed by what to match; a bare word that is not a language also matches a NAME.
public enum RenditionChoice: Equatable, Sendable {
    case language(String)
    case name(String)
    case characteristic(String)
    case channels(Int)

    /// Reads one entry; nil when it is empty or `channels:` has no number.
    public init?(_ text: String) {
        let t = String(text.trimmingOWS())
        guard !t.isEmpty else { return nil }
        if let v = RenditionChoice.after("name:", t) { self = .name(v); return }
        if let v = RenditionChoice.after("char:", t) { self = .characteristic(v); return }
        if let v = RenditionChoice.after("channels:", t) {
            guard let n = Int(v) else { return nil }
            self = .channels(n)
            return
        }
        self = .language(t)
    }

    private static func after(_ prefix: String, _ t: String) -> String? {
        guard t.lowercased().hasPrefix(prefix) else { return nil }
        let v = String(t.dropFirst(prefix.count).trimmingOWS())
        return v.isEmpty ? nil : v
    }

    public func matches(_ r: Rendition) -> Bool {
        switch self {
        case let .language(l):
            if let lang = r.language, RenditionChoice.languageMatches(lang, l) { return true }
            return r.name.lowercased() == l.lowercased()
        case let .name(n): return r.name.lowercased() == n.lowercased()
        case let .characteristic(c): return r.characteristics.contains(c)
        case let .channels(n): return r.channelCount == n
        }
    }

    /// RFC 4647 section 3.3.1 basic filtering: `range` equals `tag` or is a prefix of it ending at a
    /// subtag boundary, ignoring case (`en` matches `en-US`, `en-US` does not match `en`).
    /// Three-letter ISO 639-2 codes (which many packagers write, `LANGUAGE="eng"`) count as their
    /// two-letter ISO 639-1 equivalents, so a locale's `en` finds them.
    public static func languageMatches(_ tag: String, _ range: String) -> Bool {
        let t = normalized(tag), r = normalized(range)
        return t == r || t.hasPrefix(r + "-")
    }

    static func normalized(_ tag: String) -> String {
        var subtags = tag.lowercased().replacingUnderscores().split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        if let first = subtags.first, let two = iso639_2[first] { subtags[0] = two }
        return subtags.joined(separator: "-")
    }

    /// The common languages' ISO 639-2 (bibliographic and terminology) codes to ISO 639-1.
    static let iso639_2: [String: String] = [
        "eng": "en", "fra": "fr", "fre": "fr", "deu": "de", "ger": "de", "spa": "es", "ita": "it", "por": "pt",
        "nld": "nl", "dut": "nl", "rus": "ru", "jpn": "ja", "zho": "zh", "chi": "zh", "kor": "ko", "ara": "ar",
        "hin": "hi", "swe": "sv", "nor": "no", "nob": "nb", "dan": "da", "fin": "fi", "pol": "pl", "tur": "tr",
        "ces": "cs", "cze": "cs", "ell": "el", "gre": "el", "heb": "he", "hun": "hu", "ukr": "uk", "ron": "ro",
        "rum": "ro", "cat": "ca", "tha": "th", "vie": "vi", "ind": "id", "msa": "ms", "may": "ms", "fas": "fa",
        "per": "fa", "hrv": "hr", "srp": "sr", "slk": "sk", "slo": "sk", "slv": "sl", "bul": "bg", "isl": "is",
        "ice": "is", "est": "et", "lav": "lv", "lit": "lt", "tam": "ta", "tel": "te", "ben": "bn", "urd": "ur",
    ]
}

extension String {
    /// POSIX locales write `en_US`; language tags write `en-US`.
    func replacingUnderscores() -> String { String(map { $0 == "_" ? "-" : $0 }) }
}
