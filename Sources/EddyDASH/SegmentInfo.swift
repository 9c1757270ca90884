internal import CLibXML2

/// The segment description in effect at one level of an MPD (Period, AdaptationSet,
/// Representation): a SegmentTemplate, a SegmentList or a SegmentBase, each level's attributes
/// over those it inherits (ISO/IEC 23009-1 section 5.3.9.1: the lower level's win).
struct SegmentInfo {
    var template: SegmentTemplate?
    /// SegmentList: `@duration` and `@timescale`, and its SegmentURLs as (media, mediaRange).
    var listDuration: Int?
    var listTimescale = 1
    var listURLs: [(String?, String?)]?
    /// An Initialization element's (sourceURL, range), from any of the three.
    var initialization: (String?, String?)?
    var hasSegmentBase = false

    /// The description at `element`'s level, over `self` (what the level above gave).
    func applying(_ element: xmlNodePtr) -> SegmentInfo {
        var out = self
        for c in MPDDocument.elements(of: element) {
            let attr = { (name: String) in MPDDocument.attribute(c, name) }
            switch MPDDocument.name(c) {
            case "SegmentTemplate":
                var t = template ?? SegmentTemplate()
                if let v = attr("media") { t.media = v }
                if let v = attr("initialization") { t.initialization = v }
                if let v = attr("startNumber").flatMap(Int.init) { t.startNumber = v }
                if let v = attr("timescale").flatMap(Int.init) { t.timescale = v }
                if let v = attr("duration").flatMap(Int.init) { t.duration = v }
                if let v = attr("presentationTimeOffset").flatMap(Int.init) { t.presentationTimeOffset = v }
                if let tl = MPDDocument.elements(of: c).first(where: { MPDDocument.name($0) == "SegmentTimeline" }) {
                    t.timeline = MPDDocument.elements(of: tl).filter { MPDDocument.name($0) == "S" }.map { s in
                        SegmentTemplate.Entry(t: MPDDocument.attribute(s, "t").flatMap(Int.init),
                                              d: MPDDocument.attribute(s, "d").flatMap(Int.init) ?? 0,
                                              r: MPDDocument.attribute(s, "r").flatMap(Int.init) ?? 0)
                    }
                }
                out.template = t
            case "SegmentList":
                if let v = attr("duration").flatMap(Int.init) { out.listDuration = v }
                if let v = attr("timescale").flatMap(Int.init) { out.listTimescale = v }
                let urls = MPDDocument.elements(of: c).filter { MPDDocument.name($0) == "SegmentURL" }
                if !urls.isEmpty {
                    out.listURLs = urls.map { (MPDDocument.attribute($0, "media"), MPDDocument.attribute($0, "mediaRange")) }
                }
                out.initialization = SegmentInfo.initialization(in: c) ?? out.initialization
            case "SegmentBase":
                out.hasSegmentBase = true
                out.initialization = SegmentInfo.initialization(in: c) ?? out.initialization
            default: break
            }
        }
        return out
    }

    static func initialization(in element: xmlNodePtr) -> (String?, String?)? {
        MPDDocument.elements(of: element).first { MPDDocument.name($0) == "Initialization" }
            .map { (MPDDocument.attribute($0, "sourceURL"), MPDDocument.attribute($0, "range")) }
    }
}
