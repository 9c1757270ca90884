// Fuzzes the Range request header, the response plan, Content-Range and the 206 check.
//
// Input: newline-separated fields (UTF-8, invalid bytes replaced):
//   1. a Range header value
//   2. a Content-Range header value
//   3. a length, read as eddy reads Content-Length (digits, saturating at Int.max)
// Missing fields are absent headers.
import EddyCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let f = fields(UnsafeRawBufferPointer(start: start, count: count))
    let rangeValue = f.count > 0 ? f[0] : nil
    let contentRangeValue = f.count > 1 ? f[1] : nil
    let fuzzedLength = f.count > 2 ? RangeHeader.parseDigits(f[2].trimmingOWS()) : nil

    let header = RangeHeader.parse(rangeValue)
    check(header: header, value: rangeValue)

    let contentRange = contentRangeValue.flatMap(ContentRange.parse)
    if let cr = contentRange { check(contentRange: cr) }

    // Lengths a representation can have: small ones where every edge is near, the fuzzed one, the
    // complete length of the fuzzed Content-Range, and Int.max (Content-Length saturates there).
    var lengths = [0, 1, 2, 7, 100, 1 << 40, Int.max]
    if let n = fuzzedLength { lengths.append(n) }
    if let n = contentRange?.completeLength { lengths.append(n) }
    for length in lengths {
        let plan = RangePlan.make(header, length: length)
        check(plan: plan, header: header, length: length)
        // The snapshot hits' fast path never disagrees with the general plan.
        if let rangeValue, let span = RangeHeader.singleSpan(rangeValue, length: length) {
            require(plan == .single(span), "singleSpan differs from the plan")
        }
    }

    // The 206 check, asked as eddy would ask for the first spec.
    if case let .bytes(specs)? = header, let first = specs.first {
        let asked: RangeResponseCheck.Asked
        switch first {
        case let .from(a, b): asked = .span(first: a, last: b)
        case let .suffix(n): asked = .suffix(n)
        }
        for known in [nil, fuzzedLength, contentRange?.completeLength] {
            if case let .success(v) = RangeResponseCheck.verify(asked: asked, contentRange: contentRangeValue,
                                                                contentLength: fuzzedLength, knownLength: known) {
                require(v.span.first >= 0 && v.span.last < v.completeLength, "verified span outside the complete length")
                require(known == nil || known == v.completeLength, "verified length differs from the known one")
                require(fuzzedLength == nil || fuzzedLength == v.span.count, "verified span differs from Content-Length")
            }
        }
    }
    return 0
}

private func check(header: RangeHeader?, value: String?) {
    guard let header else { require(value == nil, "a present header parsed as absent"); return }
    guard case let .bytes(specs) = header else { return }
    require(!specs.isEmpty && specs.count <= RangeHeader.maxSpecs, "spec count out of bounds")
    for s in specs {
        switch s {
        case let .from(a, b): require(a >= 0 && (b ?? a) >= a, "bad from-spec")
        case let .suffix(n): require(n >= 0, "negative suffix")
        }
    }
    // Rendering the specs and parsing them again gives the same specs.
    let rendered = "bytes=" + specs.map { s -> String in
        switch s {
        case let .from(a, b): return "\(a)-" + (b.map(String.init) ?? "")
        case let .suffix(n): return "-\(n)"
        }
    }.joined(separator: ",")
    require(RangeHeader.parse(rendered) == header, "Range round trip: \(rendered)")
}

private func check(contentRange cr: ContentRange) {
    require(cr.span != nil || cr.completeLength != nil, "bytes */*")
    if let s = cr.span, let n = cr.completeLength { require(s.last < n, "span beyond complete length") }
    require(ContentRange.parse(cr.headerValue) == cr, "Content-Range round trip: \(cr.headerValue)")
}

private func check(plan: RangePlan, header: RangeHeader?, length: Int) {
    guard case let .bytes(specs)? = header else {
        require(plan == .full, "no Range (or an ignored one) must give 200")
        return
    }
    let resolved = specs.compactMap { $0.resolve(length: length) }
    for s in resolved { require(s.first >= 0 && s.last < length, "resolved span outside the length") }
    switch plan {
    case .full:
        // Only for amplification, or a suffix range of an empty representation.
        require(resolved.count > 1 || length == 0, "200 for a satisfiable single range")
    case .unsatisfiable:
        require(resolved.isEmpty, "416 with a satisfiable range")
    case let .single(span):
        require(span.first >= 0 && span.last < length, "206 span outside the length")
        require(coverage(resolved) == [span], "206 span is not the union of the ranges")
    case let .multipart(spans):
        require(spans.count >= 2, "multipart with one part")
        for (a, b) in zip(spans, spans.dropFirst()) { require(a.last + 1 < b.first, "multipart parts not disjoint and ascending") }
        require(spans.allSatisfy { $0.first >= 0 && $0.last < length }, "multipart part outside the length")
        require(coverage(resolved) == spans, "multipart parts are not the union of the ranges")
    }
}

/// The union of spans, coalesced (adjacent spans merge) and ascending.
private func coverage(_ spans: [ByteSpan]) -> [ByteSpan] {
    var out: [ByteSpan] = []
    for s in spans.sorted(by: { $0.first < $1.first }) {
        if let l = out.last, s.first <= l.last || s.first - 1 == l.last {
            out[out.count - 1] = ByteSpan(first: l.first, last: max(l.last, s.last))
        } else {
            out.append(s)
        }
    }
    return out
}

/// The input split at newlines, each field decoded as UTF-8 (invalid bytes become U+FFFD).
private func fields(_ bytes: UnsafeRawBufferPointer) -> [String] {
    guard !bytes.isEmpty else { return [] }
    return bytes.split(separator: 10, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
}

/// Reports a broken invariant as a crash, which libFuzzer records with the input.
private func require(_ ok: Bool, _ what: @autoclosure () -> String, line: UInt = #line) {
    if !ok { fatalError("invariant: \(what())", line: line) }
}
