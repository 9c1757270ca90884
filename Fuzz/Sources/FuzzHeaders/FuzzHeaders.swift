// Fuzzes the header parsers a cache hit and a store decision go through: Cache-Control, HTTP dates,
// entity tags, the conditional-request evaluation and freshness.
//
// Input: newline-separated fields (UTF-8, invalid bytes replaced); a missing or empty field is an absent header:
//   1. Cache-Control   2. Expires   3. Date   4. ETag (stored)   5. Last-Modified (stored)
//   6. If-Match   7. If-Unmodified-Since   8. If-None-Match   9. If-Modified-Since   10. If-Range   11. Age
import EddyCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let f = fields(UnsafeRawBufferPointer(start: start, count: count))
    func field(_ i: Int) -> String? { i < f.count && !f[i].isEmpty ? f[i] : nil }
    let etag = field(3), lastModified = field(4)

    // Cache-Control and freshness.
    let cc = CacheControl.parse(field(0))
    require((cc.maxAge ?? 0) >= 0 && (cc.sMaxAge ?? 0) >= 0, "negative max-age")
    var stored = HTTPHeaders()
    for (i, name) in [(0, "Cache-Control"), (1, "Expires"), (2, "Date"), (4, "Last-Modified"), (10, "Age")] {
        if let v = field(i) { stored.add(name, v) }
    }
    var policy = FreshnessPolicy()
    policy.defaultLifetime = 300
    let now = 1_700_000_000
    for status in [200, 404, 500] {
        let fresh = Freshness.compute(headers: stored, status: status, responseTime: now, policy: policy)
        require(fresh.lifetime >= 0, "negative lifetime")
        require(!fresh.isHeuristic || fresh.lifetime <= max(policy.heuristicMax, policy.defaultLifetime, policy.negativeLifetime),
                "heuristic lifetime over its cap")
        if cc.noCache { require(fresh.lifetime == 0 && fresh.requiresRevalidation, "no-cache yet fresh") }
        if cc.sMaxAge != nil { require(fresh.requiresRevalidation, "s-maxage without proxy-revalidate") }
    }
    let age = Freshness.initialAge(headers: stored, requestTime: now - 5, responseTime: now)
    require(age >= 5, "initial age below the request's own delay")

    // Every field as a date: a parsed date formats as IMF-fixdate and parses back to the same second.
    for value in f {
        guard let t = HTTPDate.parse(value) else { continue }
        let text = HTTPDate.format(t)
        require(HTTPDate.parse(text) == t, "date round trip: \(value) -> \(t) -> \(text)")
    }

    // Every field as an entity tag, and as a list of them.
    for value in f {
        if let tag = EntityTag.parse(value) { check(tag) }
        if let tags = EntityTag.parseList(value) { tags.forEach(check) }
    }

    // The conditional headers, each present or absent as the input says.
    var h = HTTPHeaders()
    for (i, name) in [(5, "If-Match"), (6, "If-Unmodified-Since"), (7, "if-none-match"), (8, "If-Modified-Since")] {
        if let v = field(i) { h.add(name, v) }
    }
    let outcome = Preconditions.evaluate(headers: h, etag: etag, lastModified: lastModified)
    if h.fields.isEmpty { require(outcome == .proceed, "no precondition, yet \(outcome)") }
    _ = Preconditions.rangeApplies(ifRange: field(9), etag: etag, lastModified: lastModified)
    require(Preconditions.rangeApplies(ifRange: nil, etag: etag, lastModified: lastModified), "If-Range absent, Range ignored")

    // A client that sends back the validators it was given gets 304 (If-None-Match, If-Modified-Since),
    // and a strong If-Match / If-Range with the current ETag lets the request proceed.
    if let e = etag, let tag = EntityTag.parse(e) {
        let inm = Preconditions.evaluate(headers: HTTPHeaders([("If-None-Match", e)]), etag: e, lastModified: lastModified)
        require(inm == .notModified, "If-None-Match with the current ETag gave \(inm)")
        let im = Preconditions.evaluate(headers: HTTPHeaders([("If-Match", e)]), etag: e, lastModified: lastModified)
        require(im == (tag.isWeak ? .preconditionFailed : .proceed), "If-Match with the current ETag gave \(im)")
        require(Preconditions.rangeApplies(ifRange: e, etag: e, lastModified: lastModified) == !tag.isWeak,
                "If-Range with the current ETag")
    }
    if let lm = lastModified, let t = HTTPDate.parse(lm) {
        let ims = Preconditions.evaluate(headers: HTTPHeaders([("If-Modified-Since", HTTPDate.format(t))]), etag: etag, lastModified: lm)
        require(ims == .notModified, "If-Modified-Since with Last-Modified gave \(ims)")
        let ius = Preconditions.evaluate(headers: HTTPHeaders([("If-Unmodified-Since", lm)]), etag: etag, lastModified: lm)
        require(ius == .proceed, "If-Unmodified-Since with Last-Modified gave \(ius)")
    }
    return 0
}

private func check(_ tag: EntityTag) {
    require(tag.opaque.count >= 2 && tag.opaque.first == "\"" && tag.opaque.last == "\"", "unquoted opaque tag")
    require(EntityTag.parse(tag.headerValue) == tag, "ETag round trip: \(tag.headerValue)")
    require(tag.weakMatches(tag), "a tag does not weakly match itself")
    require(tag.strongMatches(tag) == !tag.isWeak, "strong self-match")
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
