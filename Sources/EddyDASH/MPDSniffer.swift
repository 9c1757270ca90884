/// Recognising an MPEG-DASH manifest (ISO/IEC 23009-1) before parsing it: by its media type
/// (`application/dash+xml`, section C.4 of the standard), a `.mpd` path, or a body whose first
/// element is `MPD`.
public enum MPDSniffer {
    /// True for `application/dash+xml`, parameters and case aside (RFC 9110 section 8.3.1).
    public static func isMPDType(_ contentType: String?) -> Bool {
        guard let ct = contentType else { return false }
        // A media type is tokens and a slash: white space around it is all there is to drop.
        return ct.prefix { $0 != ";" }.filter { $0 != " " && $0 != "\t" }.lowercased() == "application/dash+xml"
    }

    /// True when the path (the query aside) ends in `.mpd`, in any case.
    public static func isMPDPath(_ pathAndQuery: String) -> Bool {
        let path = pathAndQuery.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return path.lowercased().hasSuffix(".mpd")
    }

    /// True when `head` (the body's first bytes) opens an `MPD` element after an optional byte
    /// order mark, XML declaration, comments and white space.
    public static func looksLikeMPD(_ head: [UInt8]) -> Bool {
        var text = Substring(String(decoding: head, as: UTF8.self))
        if text.hasPrefix("\u{FEFF}") { text = text.dropFirst() }
        while true {
            text = text.drop { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
            if text.hasPrefix("<?") || text.hasPrefix("<!--") {
                let end = text.hasPrefix("<?") ? "?>" : "-->"
                guard let r = text.firstRange(of: end) else { return false }
                text = text[r.upperBound...]
                continue
            }
            // `<MPD` or a prefixed `<dash:MPD`, followed by white space or `>`.
            guard text.hasPrefix("<") else { return false }
            let name = text.dropFirst().prefix { !" \t\r\n>/".contains($0) }
            return name == "MPD" || name.hasSuffix(":MPD")
        }
    }
}
