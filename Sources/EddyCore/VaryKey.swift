/// The secondary cache key of a response with `Vary` (RFC 9111 section 4.1): which request
/// fields select a stored variant, and the key a request's values of them give.
///
/// A variant is stored under `base` + a separator + the field names + the request's normalised
/// values of them, so every variant of a URL shares the prefix `VaryKey.prefix(base)` (the index
/// can list them with one range scan) and no variant key equals a URL's own key.
public enum VaryKey {
    /// The request fields `Vary` names, lowercased, unique and sorted, without `Accept-Encoding`
    /// (eddy never forwards it: every client gets the origin's identity bytes). Empty when
    /// nothing but Accept-Encoding varies; nil for `Vary: *`, which no request ever matches
    /// (section 4.1). `values` are the Vary field lines.
    public static func fields(_ values: [String]) -> [String]? {
        var out = Set<String>()
        for line in values {
            for member in line.split(separator: ",") {
                let name = member.trimmingOWS().lowercased()
                if name == "*" { return nil }
                if !name.isEmpty && name != "accept-encoding" { out.insert(name) }
            }
        }
        return out.sorted()
    }

    /// What every variant key of `base` starts with.
    public static func prefix(_ base: String) -> String { base + "\u{1}vary\u{1}" }

    /// The key of the variant that `request` selects among responses varying on `fields`.
    /// Values are normalised as section 4.1 allows: field lines combined, list members trimmed of
    /// whitespace; an absent field differs from an empty one. Case is kept (a field's own
    /// definition decides whether case matters, and a spare variant is never wrong).
    public static func key(_ base: String, fields: [String], request: HTTPHeaders) -> String {
        var out = prefix(base) + fields.joined(separator: ",")
        for f in fields {
            out += "\u{1}"
            let lines = request.values(f)
            guard !lines.isEmpty else {
                out += "\u{2}"
                continue
            }
            let members = lines.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }.map { $0.trimmingOWS() }
            // The separators may not appear inside a value, so no two requests share a key by accident.
            for c in members.joined(separator: ",").unicodeScalars {
                switch c {
                case "\u{1}": out += "%01"
                case "\u{2}": out += "%02"
                case "%": out += "%25"
                default: out.unicodeScalars.append(c)
                }
            }
        }
        return out
    }

    /// The fields a variant key was made for; nil for a key that is not a variant's.
    public static func fields(ofKey key: String) -> [String]? {
        guard let rest = afterSeparator(key) else { return nil }
        let names = rest.prefix { $0 != "\u{1}" }
        let out = names.split(separator: ",").map(String.init)
        return out.isEmpty ? nil : out
    }

    /// The least string greater than every key starting with `prefix(base)`, for an index range scan.
    public static func prefixEnd(_ base: String) -> String { base + "\u{1}vary\u{2}" }

    /// What follows the variant separator. A URL key holds no control characters (`UpstreamURL`
    /// percent-encodes them), so the first U+0001 starts the separator.
    private static func afterSeparator(_ key: String) -> Substring? {
        guard let i = key.firstIndex(of: "\u{1}") else { return nil }
        let rest = key[key.index(after: i)...]
        guard rest.hasPrefix("vary\u{1}") else { return nil }
        return rest.dropFirst(5)
    }
}
