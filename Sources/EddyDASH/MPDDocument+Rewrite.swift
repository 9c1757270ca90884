internal import CLibXML2

/// Rewriting an MPD's URLs so that a player asks eddy for everything (what a proxy rewrites:
/// ISO/IEC 23009-1 section 5.6, base URL processing).
extension MPDDocument {
    /// The attributes that hold a URL or a URL template (sections 5.3.9.2 to 5.3.9.5).
    static let urlAttributes: [String: [String]] = [
        "SegmentTemplate": ["media", "initialization", "index", "bitstreamSwitching"],
        "SegmentURL": ["media", "index"],
        "Initialization": ["sourceURL"],
        "RepresentationIndex": ["sourceURL"],
        "BitstreamSwitching": ["sourceURL"],
    ]

    /// Rewrites every URL of the manifest fetched from `documentURL`:
    /// - each `BaseURL` (at every level) becomes `target` of the URL it names, resolved against
    ///   the base in effect above it (the first `BaseURL` of a level is the one resolved
    ///   against, as players do);
    /// - `Location` (section 5.3.1.2, where to reload from) likewise;
    /// - URL attributes written as absolute URLs or absolute paths likewise (relative ones
    ///   resolve against a base that now names eddy, as before);
    /// - `PatchLocation` is removed: an MPD patch applies to the origin's document, not to this
    ///   one, so clients fetch the whole (rewritten) MPD instead.
    ///
    /// `resolve(reference, base)` gives the absolute URL of a reference, nil when it has none;
    /// `target(url)` gives eddy's URL for it, nil to keep the reference as written (a URL eddy
    /// may not fetch). `UTCTiming` is kept as written: a clock must be the origin's, never a
    /// cached answer.
    public func rewriteURLs(documentURL: String, resolve: (String, String) -> String?, target: (String) -> String?) {
        rewrite(element: root, base: documentURL, documentURL: documentURL, resolve: resolve, target: target)
    }

    private func rewrite(element: xmlNodePtr, base parentBase: String, documentURL: String,
                         resolve: (String, String) -> String?, target: (String) -> String?) {
        let children = MPDDocument.elements(of: element)
        var base = parentBase
        var first = true
        for c in children where MPDDocument.name(c) == "BaseURL" {
            let written = MPDDocument.text(c).trimmingXMLSpace()
            guard let absolute = resolve(written, parentBase) else { continue }
            if first { (base, first) = (absolute, false) }
            if let t = target(absolute) { MPDDocument.setText(c, t) }
        }
        for c in children {
            switch MPDDocument.name(c) {
            case "BaseURL": continue
            case "Location":
                if let absolute = resolve(MPDDocument.text(c).trimmingXMLSpace(), documentURL), let t = target(absolute) {
                    MPDDocument.setText(c, t)
                }
            case "PatchLocation":
                eddy_xml.unlink_node(c)
                eddy_xml.free_node(c)
                continue
            default:
                break
            }
            for attr in MPDDocument.urlAttributes[MPDDocument.name(c)] ?? [] {
                guard let v = MPDDocument.attribute(c, attr), MPDDocument.isAbsolute(v),
                      let absolute = resolve(v, base), let t = target(absolute),
                      MPDDocument.identifiers(t) == MPDDocument.identifiers(v) else { continue }
                _ = eddy_xml.set_prop(c, attr, t)
            }
            rewrite(element: c, base: base, documentURL: documentURL, resolve: resolve, target: target)
        }
    }

    /// True for a URL with a scheme or a path from the root: it does not resolve against a base
    /// that names eddy.
    static func isAbsolute(_ v: String) -> Bool {
        if v.hasPrefix("/") { return true }
        guard let colon = v.firstIndex(of: ":") else { return false }
        let scheme = v[..<colon]
        return !scheme.isEmpty && scheme.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) } && !scheme.contains("$")
    }

    /// The template identifiers (`$Number%05d$`, section 5.3.9.4.4) a URL holds, in order: a
    /// rewrite that changed them would break the template, and is not made.
    static func identifiers(_ v: String) -> [Substring] {
        v.split(separator: "$", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
    }

    /// Replaces an element's text; `xmlNodeSetContent` reads entity references, so the text is
    /// escaped first.
    static func setText(_ node: xmlNodePtr, _ text: String) {
        var escaped = ""
        for ch in text {
            switch ch {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.append(ch)
            }
        }
        eddy_xml.set_content(node, escaped)
    }
}

extension String {
    /// Without the XML white space (section 2.3 of XML 1.0) around it.
    func trimmingXMLSpace() -> String {
        let ws: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        return String(drop(while: ws).reversed().drop(while: ws).reversed())
    }
}
