/// Loop detection by `Via` (RFC 9110 section 7.6.3): a request whose Via already names this
/// proxy's pseudonym has been here before: a cluster whose parents point back at their children
/// would pass it around for ever. ATS and Varnish answer such a request 508 (Loop Detected,
/// RFC 5842 section 7.2); so does eddy.
public enum ViaLoop {
    /// Whether any entry of the Via field lines `values` was received by `name`: each entry is
    /// `[protocol-name "/"] protocol-version received-by [comment]`, and names compare exactly
    /// (a pseudonym is a token; a host's case does not matter).
    public static func names(_ values: [String], _ name: String) -> Bool {
        for line in values {
            for entry in line.split(separator: ",") {
                let words = entry.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard words.count >= 2 else { continue }
                if words[1].lowercased() == name.lowercased() { return true }
            }
        }
        return false
    }
}
