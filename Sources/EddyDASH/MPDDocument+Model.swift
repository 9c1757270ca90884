internal import CLibXML2

/// Reading an MPD's periods, representations and segments (ISO/IEC 23009-1 section 5.3) into
/// an `MPDManifest`.
extension MPDDocument {
    /// The manifest of this document fetched from `documentURL`; `resolve(reference, base)`
    /// gives a reference's absolute URL. Throws when a representation would list more segments
    /// than `SegmentTemplate.maxSegments`.
    public func manifest(documentURL: String, resolve: (String, String) -> String?) throws -> MPDManifest {
        try walk(documentURL: documentURL, resolve: resolve).0
    }

    /// Removes every Representation `keep` refuses, and the adaptation sets left with none (an
    /// offline MPD lists only what downloads hold whole, ISO/IEC 23009-1 section 5.3.3: an
    /// AdaptationSet has at least one Representation). Periods stay: a player skips an empty one.
    public func keepRepresentations(documentURL: String, resolve: (String, String) -> String?,
                                    _ keep: (MPDRepresentation) -> Bool) throws {
        let (manifest, nodes) = try walk(documentURL: documentURL, resolve: resolve)
        for (rep, node) in zip(manifest.allRepresentations, nodes) where !keep(rep) {
            let set = node.pointee.parent
            eddy_xml.unlink_node(node)
            eddy_xml.free_node(node)
            if let set, !MPDDocument.elements(of: set).contains(where: { MPDDocument.name($0) == "Representation" }) {
                eddy_xml.unlink_node(set)
                eddy_xml.free_node(set)
            }
        }
    }

    /// The manifest, and the Representation element of each of `allRepresentations`, in order.
    private func walk(documentURL: String, resolve: (String, String) -> String?) throws -> (MPDManifest, [xmlNodePtr]) {
        var nodes: [xmlNodePtr] = []
        let total = MPDDocument.attribute(root, "mediaPresentationDuration").flatMap(ISODuration.seconds)
        let rootBase = base(of: root, over: documentURL, resolve: resolve)
        let periodElements = MPDDocument.elements(of: root).filter { MPDDocument.name($0) == "Period" }
        // Starts and durations first: a period's end is the next one's start (section 5.3.2.1).
        var starts: [Double] = [], durations: [Double?] = []
        for p in periodElements {
            var start = MPDDocument.attribute(p, "start").flatMap(ISODuration.seconds)
            if start == nil, let previous = starts.last, let d = durations.last ?? nil { start = previous + d }
            starts.append(start ?? starts.last ?? 0)
            durations.append(MPDDocument.attribute(p, "duration").flatMap(ISODuration.seconds))
        }
        for i in durations.indices where durations[i] == nil {
            durations[i] = i + 1 < starts.count ? starts[i + 1] - starts[i] : total.map { $0 - starts[i] }
        }
        var periods: [MPDManifest.Period] = []
        for (i, p) in periodElements.enumerated() {
            let pBase = base(of: p, over: rootBase, resolve: resolve)
            let pInfo = SegmentInfo().applying(p)
            var reps: [MPDRepresentation] = []
            var protected = false
            for a in MPDDocument.elements(of: p) where MPDDocument.name(a) == "AdaptationSet" {
                if MPDDocument.elements(of: a).contains(where: { MPDDocument.name($0) == "ContentProtection" }) { protected = true }
                let aBase = base(of: a, over: pBase, resolve: resolve)
                let aInfo = pInfo.applying(a)
                for r in MPDDocument.elements(of: a) where MPDDocument.name(r) == "Representation" {
                    if MPDDocument.elements(of: r).contains(where: { MPDDocument.name($0) == "ContentProtection" }) { protected = true }
                    var rep = MPDDocument.representation(r, in: a)
                    let rBase = base(of: r, over: aBase, resolve: resolve)
                    try list(&rep, info: aInfo.applying(r), base: rBase, periodStart: starts[i], periodDuration: durations[i], resolve: resolve)
                    reps.append(rep)
                    nodes.append(r)
                }
            }
            periods.append(.init(id: MPDDocument.attribute(p, "id"), start: starts[i], duration: durations[i],
                                 representations: reps, isProtected: protected))
        }
        return (MPDManifest(isDynamic: isDynamic, duration: total, periods: periods), nodes)
    }

    /// The base URL in effect at `element`: its first BaseURL resolved against `parent`.
    private func base(of element: xmlNodePtr, over parent: String, resolve: (String, String) -> String?) -> String {
        guard let b = MPDDocument.elements(of: element).first(where: { MPDDocument.name($0) == "BaseURL" }) else { return parent }
        return resolve(MPDDocument.text(b).trimmingXMLSpace(), parent) ?? parent
    }

    /// A Representation's attributes, its AdaptationSet's where it has none (section 5.3.7).
    static func representation(_ r: xmlNodePtr, in a: xmlNodePtr) -> MPDRepresentation {
        let v = { (name: String) in attribute(r, name) ?? attribute(a, name) }
        let mime = v("mimeType")
        var rep = MPDRepresentation(id: attribute(r, "id") ?? "", bandwidth: attribute(r, "bandwidth").flatMap(Int.init),
                                    width: v("width").flatMap(Int.init), height: v("height").flatMap(Int.init), frameRate: v("frameRate"),
                                    codecs: v("codecs"), mimeType: mime,
                                    contentType: attribute(a, "contentType") ?? mime.flatMap { $0.split(separator: "/").first.map(String.init) },
                                    lang: attribute(a, "lang"))
        // Descriptors of the representation, then of its adaptation set (the nearer one wins).
        let descriptors = elements(of: r) + elements(of: a)
        func values(_ names: Set<String>, scheme: String) -> [String] {
            descriptors.filter { names.contains(name($0)) && attribute($0, "schemeIdUri")?.lowercased() == scheme.lowercased() }
                .compactMap { attribute($0, "value") }
        }
        rep.channels = values(["AudioChannelConfiguration"], scheme: "urn:mpeg:dash:23003:3:audio_channel_configuration:2011").first.flatMap { Int($0) }
            ?? values(["AudioChannelConfiguration"], scheme: "urn:mpeg:mpegB:cicp:ChannelConfiguration").first
                .flatMap { Int($0) }.flatMap { cicpChannels[$0] }
        rep.videoRange = values(["EssentialProperty", "SupplementalProperty"], scheme: "urn:mpeg:mpegB:cicp:TransferCharacteristics")
            .first.flatMap { Int($0) }.flatMap { code in code == 16 ? "PQ" : code == 18 ? "HLG" : [1, 6, 13, 14, 15].contains(code) ? "SDR" : nil }
        rep.roles = values(["Role"], scheme: "urn:mpeg:dash:role:2011")
        return rep
    }

    /// Channels of each ChannelConfiguration code of ISO/IEC 23091-3 (table 10) that names a count.
    static let cicpChannels: [Int: Int] = [1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 8, 9: 3, 10: 4, 11: 7, 12: 8, 13: 24, 14: 8,
                                            15: 12, 16: 10, 17: 12, 18: 14, 19: 12, 20: 14]

    /// Fills `rep`'s initialization and segments from the segment description in effect.
    private func list(_ rep: inout MPDRepresentation, info: SegmentInfo, base: String, periodStart: Double,
                      periodDuration: Double?, resolve: (String, String) -> String?) throws {
        func url(_ ref: String?) -> String { ref.flatMap { resolve($0, base) } ?? base }
        if let t = info.template {
            if let i = t.initialization {
                rep.initialization = MPDSegment(url: url(SegmentTemplate.fill(i, id: rep.id, number: t.startNumber, bandwidth: rep.bandwidth, time: 0)))
            }
            rep.segments = try t.expand(representationID: rep.id, bandwidth: rep.bandwidth, periodDuration: periodDuration).map {
                MPDSegment(url: url($0.0), start: periodStart + $0.1, duration: $0.2)
            }
            return
        }
        if let (source, range) = info.initialization {
            rep.initialization = MPDSegment(url: url(source), byteRange: MPDSegment.range(range))
        }
        if let urls = info.listURLs {
            guard urls.count <= SegmentTemplate.maxSegments else {
                throw MPDError("a SegmentList lists more than \(SegmentTemplate.maxSegments) segments")
            }
            let d = Double(info.listDuration ?? 0) / Double(Swift.max(info.listTimescale, 1))
            rep.segments = urls.enumerated().map { k, u in
                MPDSegment(url: url(u.0), start: periodStart + Double(k) * d, duration: d, byteRange: MPDSegment.range(u.1))
            }
            return
        }
        // SegmentBase, or nothing: the representation is one file at its BaseURL.
        rep.segments = [MPDSegment(url: base, start: periodStart, duration: periodDuration ?? 0)]
    }
}
