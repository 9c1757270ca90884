/// A recursive-descent reader of `VariantPredicate` text. Grammar:
///
///     predicate  := or
///     or         := and ("||" and)*
///     and        := unary ("&&" unary)*
///     unary      := "!" unary | "(" or ")" | test
///     test       := ATTRIBUTE ("==" | "!=" | "<" | "<=" | ">" | ">=") value
///                 | ATTRIBUTE "in" "[" value ("," value)* "]"
///                 | ATTRIBUTE "contains" value
///     value      := NUMBER[k|M|G] | WORD | "quoted"
///
/// Input is bounded (`maxLength`, `maxDepth`) so that a hostile predicate can not exhaust the stack.
struct PredicateParser {
    private let chars: [Character]
    private var i = 0
    private var depth = 0

    static let maxLength = 4096
    static let maxDepth = 64

    init(_ text: String) { chars = Array(text) }

    mutating func parseAll() throws(PredicateSyntaxError) -> VariantPredicate {
        guard chars.count <= Self.maxLength else { throw PredicateSyntaxError("longer than \(Self.maxLength) characters", at: Self.maxLength) }
        skipSpace()
        if i == chars.count { return .always }
        let p = try parseOr()
        skipSpace()
        guard i == chars.count else { throw PredicateSyntaxError("unexpected '\(String(chars[i]))'", at: i) }
        return p
    }

    private mutating func parseOr() throws(PredicateSyntaxError) -> VariantPredicate {
        var p = try parseAnd()
        while take("||") { p = .or(p, try parseAnd()) }
        return p
    }

    private mutating func parseAnd() throws(PredicateSyntaxError) -> VariantPredicate {
        var p = try parseUnary()
        while take("&&") { p = .and(p, try parseUnary()) }
        return p
    }

    private mutating func parseUnary() throws(PredicateSyntaxError) -> VariantPredicate {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else { throw PredicateSyntaxError("nested more than \(Self.maxDepth) deep", at: i) }
        skipSpace()
        if peek("!") && !peek("!=") {
            i += 1
            return .not(try parseUnary())
        }
        if take("(") {
            let p = try parseOr()
            guard take(")") else { throw PredicateSyntaxError("expected ')'", at: position) }
            return p
        }
        return try parseTest()
    }

    private mutating func parseTest() throws(PredicateSyntaxError) -> VariantPredicate {
        let at = position
        guard let name = word() else { throw PredicateSyntaxError("expected an attribute (\(VariantAttribute.allCases.map(\.rawValue).joined(separator: ", ")))", at: at) }
        guard let attr = VariantAttribute.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else {
            throw PredicateSyntaxError("unknown attribute '\(name)' (known: \(VariantAttribute.allCases.map(\.rawValue).joined(separator: ", ")))", at: at)
        }
        for op in [VariantPredicate.Comparison.le, .ge, .eq, .ne, .lt, .gt] where take(op.rawValue) {
            let vat = position
            let v = try value()
            if op != .eq && op != .ne {
                guard attr.kind == .number else { throw PredicateSyntaxError("'\(op.rawValue)' needs a numeric attribute; \(attr.rawValue) is not", at: at) }
                guard case .number = v else { throw PredicateSyntaxError("'\(op.rawValue)' needs a number", at: vat) }
            }
            return .compare(attr, op, v)
        }
        let kat = position
        switch word() {
        case "in":
            guard take("[") || take("(") else { throw PredicateSyntaxError("expected '[' after 'in'", at: position) }
            let close: String = chars[i - 1] == "[" ? "]" : ")"
            var list = [try value()]
            while take(",") { list.append(try value()) }
            guard take(close) else { throw PredicateSyntaxError("expected '\(close)'", at: position) }
            return .isIn(attr, list)
        case "contains":
            let vat = position
            switch try value() {
            case let .word(w): return .contains(attr, w)
            case .number: throw PredicateSyntaxError("'contains' needs a word", at: vat)
            }
        default:
            throw PredicateSyntaxError("expected an operator (== != < <= > >= in contains) after \(attr.rawValue)", at: kat)
        }
    }

    /// A number (with an optional k/M/G multiplier), a quoted string, or a bare word.
    private mutating func value() throws(PredicateSyntaxError) -> PredicateValue {
        skipSpace()
        let at = i
        if take("\"") {
            let start = i
            while i < chars.count && chars[i] != "\"" { i += 1 }
            guard i < chars.count else { throw PredicateSyntaxError("unterminated quoted string", at: at) }
            let s = String(chars[start..<i])
            i += 1
            return .word(s)
        }
        guard let w = word() else { throw PredicateSyntaxError("expected a value", at: at) }
        if let d = PredicateParser.number(w) { return .number(d) }
        if w.first?.isNumber == true && !w.contains(".") && !w.contains("-") {
            throw PredicateSyntaxError("malformed number '\(w)'", at: at)
        }
        return .word(w)
    }

    static func number(_ w: String) -> Double? {
        var s = Substring(w)
        var scale = 1.0
        switch s.last {
        case "k", "K": scale = 1e3; s = s.dropLast()
        case "M": scale = 1e6; s = s.dropLast()
        case "G": scale = 1e9; s = s.dropLast()
        default: break
        }
        guard !s.isEmpty, s.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let d = Double(s) else { return nil }
        return d * scale
    }

    /// Letters, digits and `. - _ /`: attribute names, words (PQ, TYPE-1, hvc1.2.4) and numbers.
    private mutating func word() -> String? {
        skipSpace()
        let start = i
        while i < chars.count, chars[i].isLetter || chars[i].isNumber || "._-/".contains(chars[i]) { i += 1 }
        return i > start ? String(chars[start..<i]) : nil
    }

    private var position: Int {
        mutating get { skipSpace(); return i }
    }

    private func peek(_ s: String) -> Bool {
        let c = Array(s)
        return i + c.count <= chars.count && Array(chars[i..<(i + c.count)]) == c
    }

    private mutating func take(_ s: String) -> Bool {
        skipSpace()
        guard peek(s) else { return false }
        i += s.count
        return true
    }

    private mutating func skipSpace() {
        while i < chars.count && chars[i].isWhitespace { i += 1 }
    }
}
