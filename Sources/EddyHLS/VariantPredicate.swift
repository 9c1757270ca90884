/// A predicate over a variant's attributes, as AVAssetVariantQualifier takes an NSPredicate:
/// `videoRange == PQ && peakBitRate < 5000000`, `height <= 720`, `videoCodec in [hvc1, dvh1]`,
/// `!(hdcp == TYPE-1)`. Operators: `== != < <= > >=`, `in [..]`, `contains`, `&& || !` and
/// parentheses; numbers may end in k, M or G (decimal: 5M is 5,000,000). Codecs compare by
/// prefix (`videoCodec == hvc1` matches `hvc1.2.4.L123.B0`); words ignore case.
public indirect enum VariantPredicate: Equatable, Sendable {
    public enum Comparison: String, Sendable { case eq = "==", ne = "!=", lt = "<", le = "<=", gt = ">", ge = ">=" }

    case compare(VariantAttribute, Comparison, PredicateValue)
    case isIn(VariantAttribute, [PredicateValue])
    case contains(VariantAttribute, String)
    case not(VariantPredicate)
    case and(VariantPredicate, VariantPredicate)
    case or(VariantPredicate, VariantPredicate)
    /// Matches every variant (an empty qualifier).
    case always

    /// Reads a predicate; the error names the position of the first thing it could not read.
    public static func parse(_ text: String) throws(PredicateSyntaxError) -> VariantPredicate {
        var p = PredicateParser(text)
        return try p.parseAll()
    }

    /// True when `v` satisfies the predicate; `channels` is what `VariantAttribute.channels` reads.
    public func matches(_ v: Variant, channels: Int?) -> Bool {
        switch self {
        case .always: return true
        case let .not(p): return !p.matches(v, channels: channels)
        case let .and(a, b): return a.matches(v, channels: channels) && b.matches(v, channels: channels)
        case let .or(a, b): return a.matches(v, channels: channels) || b.matches(v, channels: channels)
        case let .contains(attr, s):
            return attr.values(of: v, channels: channels).contains {
                if case let .word(w) = $0 { return w.lowercased().contains(s.lowercased()) }
                return false
            }
        case let .isIn(attr, list):
            let values = attr.values(of: v, channels: channels)
            return values.contains { value in list.contains { VariantPredicate.equal(attr, value, $0) } }
        case let .compare(attr, op, literal):
            let values = attr.values(of: v, channels: channels)
            switch op {
            case .eq: return values.contains { VariantPredicate.equal(attr, $0, literal) }
            case .ne: return !values.contains { VariantPredicate.equal(attr, $0, literal) }
            case .lt, .le, .gt, .ge:
                guard case let .number(x)? = values.first, case let .number(y) = literal else { return false }
                switch op {
                case .lt: return x < y
                case .le: return x <= y
                case .gt: return x > y
                default: return x >= y
                }
            }
        }
    }

    /// Equality as the attribute's kind defines it: numbers exactly, codecs by prefix of the
    /// literal's dotted parts, words ignoring case.
    static func equal(_ attr: VariantAttribute, _ value: PredicateValue, _ literal: PredicateValue) -> Bool {
        switch (value, literal) {
        case let (.number(a), .number(b)): return a == b
        case let (.word(a), .word(b)):
            if attr.kind == .codec { return a == b || a.hasPrefix(b + ".") || (a.lowercased() == b.lowercased()) }
            return a.lowercased() == b.lowercased()
        case let (.word(a), .number(b)): return attr.kind != .number && Double(a) == b
        default: return false
        }
    }
}
