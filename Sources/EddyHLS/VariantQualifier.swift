/// One of AVAssetDownloadConfiguration's variant qualifiers: a predicate, and which of the
/// variants it matches to take: the highest peak bit rate (Apple's rule), or the lowest when the
/// text ends in `lowest` (`height >= 720 lowest`; `lowest` alone takes the lowest variant).
public struct VariantQualifier: Equatable, Sendable {
    public var predicate: VariantPredicate
    public var lowest: Bool

    public init(predicate: VariantPredicate, lowest: Bool = false) {
        self.predicate = predicate
        self.lowest = lowest
    }

    public static func parse(_ text: String) throws(PredicateSyntaxError) -> VariantQualifier {
        var body = Substring(text)
        while body.last?.isWhitespace == true { body = body.dropLast() }
        var lowest = false
        for (word, isLowest) in [("lowest", true), ("highest", false)] where body.lowercased().hasSuffix(word) {
            let before = body.dropLast(word.count)
            if before.isEmpty || before.last?.isWhitespace == true {
                lowest = isLowest
                body = before
                break
            }
        }
        return VariantQualifier(predicate: try VariantPredicate.parse(String(body)), lowest: lowest)
    }

    /// The variant this qualifier picks among `variants`, nil when it matches none. Ties in peak
    /// bit rate go to the higher (or lower) average bit rate, then to the earlier variant.
    public func pick(_ variants: [Variant], in playlist: MultivariantPlaylist) -> Variant? {
        let matching = variants.filter { predicate.matches($0, channels: playlist.channels(of: $0)) }
        let key = { (v: Variant) in (v.bandwidth, v.averageBandwidth ?? v.bandwidth) }
        return matching.min { a, b in
            let (ka, kb) = (key(a), key(b))
            if ka == kb { return a.index < b.index }
            return lowest ? ka < kb : ka > kb
        }
    }
}
