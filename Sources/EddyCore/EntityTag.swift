/// An entity tag (RFC 9110 section 8.8.3): an opaque quoted string, optionally weak (`W/`).
public struct EntityTag: Equatable, Hashable, Sendable {
    /// The opaque-tag including its double quotes.
    public let opaque: String
    /// True for `W/"..."`.
    public let isWeak: Bool

    public init(opaque: String, isWeak: Bool) {
        self.opaque = opaque
        self.isWeak = isWeak
    }

    /// Parses one entity-tag; nil when the value is not of that form.
    public static func parse(_ value: String) -> EntityTag? {
        var v = value.trimmingOWS()
        var weak = false
        if v.hasPrefix("W/") { weak = true; v = v.dropFirst(2) }
        guard v.count >= 2, v.first == "\"", v.last == "\"", !v.dropFirst().dropLast().contains("\"") else { return nil }
        return EntityTag(opaque: String(v), isWeak: weak)
    }

    /// Parses a list such as an If-None-Match value; `*` yields nil (matches any).
    public static func parseList(_ value: String) -> [EntityTag]? {
        if value.trimmingOWS() == "*" { return nil }
        // Split on commas outside quotes only: etagc includes "," (RFC 9110 section 8.8.3).
        var tags: [EntityTag] = []
        var item = "", quoted = false
        for c in value {
            if c == "\"" { quoted.toggle() }
            if c == "," && !quoted {
                if let t = parse(item) { tags.append(t) }
                item = ""
            } else {
                item.append(c)
            }
        }
        if let t = parse(item) { tags.append(t) }
        return tags
    }

    /// The header form.
    public var headerValue: String { isWeak ? "W/" + opaque : opaque }

    /// Strong comparison: both strong and identical (RFC 9110 section 8.8.3.2).
    public func strongMatches(_ other: EntityTag) -> Bool { !isWeak && !other.isWeak && opaque == other.opaque }

    /// Weak comparison: opaque tags identical, weakness ignored.
    public func weakMatches(_ other: EntityTag) -> Bool { opaque == other.opaque }
}
