// Fuzzes request routing: request-targets, upstream URLs, URI references, host patterns, IP literals
// and path normalization, with the invariants the proxy's safety rests on.
//
// Input: newline-separated fields (UTF-8, invalid bytes replaced):
//   1. a request-target as evhttp hands it over (origin-form or absolute-form)
//   2. an absolute URL (the base for field 3; a fixed one when it does not parse)
//   3. a URI reference, as a playlist or a Location header carries it
//   4. an --allow-host pattern
// Every field is also tried as a host literal, an IPv6/IPv4 address and a path.
import EddyCore
import EddyHLS
import Glibc

private let routes = [
    OriginRoute(prefix: "/v/", base: UpstreamURL.parse("https://cdn.example.com:8443/media/")!),
    OriginRoute(prefix: "/cdn1", base: UpstreamURL.parse("http://[2001:db8::1]/base")!),
    OriginRoute(prefix: "/a/b/", base: UpstreamURL.parse("http://origin.example.net/x/y/")!),
]
private let catchAll = OriginRoute(prefix: "/", base: UpstreamURL.parse("http://root.example.org")!)
private let patterns = ["*.example.com", "cdn.example.org:8443", "[::1]:8080", "127.0.0.1:*", "media-?.test",
                        "[fe80::1%25eth0]", "origin.example.net"].map { HostPattern($0)! }
/// Explicit hosts and wildcards, routes without a catch-all.
private let named = TargetResolver(routes: routes, allowHosts: patterns)
/// `--allow-host '*'`: any public host, internal literals refused; a catch-all route.
private let open = TargetResolver(routes: routes + [catchAll], allowHosts: [HostPattern("*")!])
private let fallbackBase = UpstreamURL.parse("https://cdn.example.com/live/chan/index.m3u8?token=abc")!

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let f = fields(UnsafeRawBufferPointer(start: start, count: count))
    func field(_ i: Int) -> String? { i < f.count ? f[i] : nil }

    if let target = field(0) {
        for r in [named, open] { check(r.resolve(target), by: r) }
    }

    var base = fallbackBase
    if let text = field(1), let url = UpstreamURL.parse(Substring(text)) {
        check(url)
        base = url
        for r in [named, open] {
            check(r.resolve("/" + url.description), by: r)
            check(r.resolve(url.description), by: r)
            checkEddyTargets(url, r)
        }
    }

    if let ref = field(2), let u = URIReference.resolve(ref, against: base) {
        check(u)
        let trimmed = ref.trimmingOWS()
        if !trimmed.isEmpty && !trimmed.hasPrefix("?") && !trimmed.hasPrefix("#") {
            // Resolved references carry no dot segments (RFC 3986 section 5.2.4).
            let path = u.pathAndQuery.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
            require(!path.split(separator: "/").contains { $0 == "." || $0 == ".." }, "dot segment left in \(u) from \(ref)")
        }
        for r in [named, open] { checkEddyTargets(u, r) }
    }

    if let text = field(3), let p = HostPattern(text) {
        require(!p.host.isEmpty && p.host == p.host.lowercased(), "pattern host empty or not lowercase")
        require(p.port.map { (1...65535).contains($0) } ?? true, "pattern port out of range")
        let plain = p.host.utf8.allSatisfy { c in
            (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || c == 45 || c == 46 || c == 95 || c == 42 || c == 63
        }
        // description is host[:port]; an IPv6 or otherwise odd host needs its brackets back.
        if plain { require(HostPattern(p.description) == p, "host pattern round trip: \(p)") }
        if plain && !p.host.contains("*") && !p.host.contains("?") {
            require(p.matches(host: p.host.uppercased(), port: p.port ?? 80), "a plain pattern does not match its own host")
        }
        _ = p.matches(host: base.host, port: base.port)
    }

    for value in f {
        checkAddress(value)
        if value.utf8.first == UInt8(ascii: "/") { checkNormalizer(value) }
    }
    return 0
}

// MARK: - routing

private func check(_ result: RequestTarget, by r: TargetResolver) {
    guard case let .upstream(url, form, checkAddress) = result else { return }
    // The path may hold a '#' only in the mapped form (it is passed on as evhttp gave it).
    if !url.pathAndQuery.contains("#") { check(url) }
    switch form {
    case .mapped:
        require(!checkAddress, "mapped request with an address check")
        guard let route = r.routes.first(where: { sameOrigin($0.base, url) }) else {
            fatalError("invariant: mapped to an origin that is not configured: \(url)")
        }
        var basePath = route.base.pathAndQuery
        if basePath.hasSuffix("/") { basePath.removeLast() }
        require(url.pathAndQuery.hasPrefix(basePath + "/"), "mapped URL \(url) is not under its base \(route.base)")
        let rest = url.pathAndQuery.dropFirst(basePath.count)
        require(!climbs(rest), "mapped URL \(url) climbs out of its base \(route.base) as an origin may read it")
    case .urlPrefix, .forward:
        let matching = r.allowHosts.filter { $0.matches(host: url.host, port: url.port) }
        require(!matching.isEmpty, "upstream host \(url.host) matches no --allow-host")
        let explicit = matching.contains { !$0.host.contains("*") && !$0.host.contains("?") }
        require(checkAddress == !explicit, "address check when the host was not named explicitly")
        if !explicit {
            require(!AddressPolicy.isInternalLiteral(host: url.host), "internal literal \(url.host) allowed")
            require(!oracleInternal(url.host), "internal literal \(url.host) allowed (by inet_pton)")
        }
    }
    // The gate every fetch passes (CurlMulti) lets through what the resolver routed.
    let verdict = r.gate.check(url)
    require(verdict == .allow(checkAddress: false) || verdict == .allow(checkAddress: checkAddress),
            "routed \(url) (\(form)), yet the gate says \(verdict)")
}

/// `url` with its path normalized as the mapped form does (dot segments, unreserved escapes): the
/// same resource (RFC 3986 section 6.2.2), so an eddy target may name it this way.
private func normalized(_ url: UpstreamURL) -> UpstreamURL? {
    guard case let .success(p) = PathNormalizer.normalize(url.pathAndQuery) else { return nil }
    return UpstreamURL(scheme: url.scheme, host: url.host, port: url.port, pathAndQuery: p)
}

private func sameOrigin(_ a: UpstreamURL, _ b: UpstreamURL) -> Bool {
    a.scheme == b.scheme && a.host == b.host && a.port == b.port
}

/// The request-targets eddy writes into playlists and redirects route back to the same URL.
private func checkEddyTargets(_ url: UpstreamURL, _ r: TargetResolver) {
    for form in [RequestForm.mapped, .urlPrefix, .forward] {
        guard let t = r.eddyTarget(for: url, form: form) else { continue }
        guard case let .upstream(u, _, _) = r.resolve(t) else { fatalError("invariant: eddy target \(t) for \(url) is refused") }
        require(u == url || u == normalized(url), "eddy target \(t) for \(url) routes to \(u)")
    }
}

private func check(_ url: UpstreamURL) {
    require(url.scheme == "http" || url.scheme == "https", "scheme \(url.scheme)")
    require(url.host == url.host.lowercased() && !url.host.isEmpty, "host not lowercase or empty")
    require((1...65535).contains(url.port), "port \(url.port)")
    require(url.pathAndQuery.hasPrefix("/"), "path without /")
    require(url.pathAndQuery.utf8.allSatisfy { $0 > 32 && $0 < 127 }, "control, space or non-ASCII byte in path")
    guard let again = UpstreamURL.parse(Substring(url.description)) else { fatalError("invariant: \(url) does not parse again") }
    require(again == url && again.host == url.host && again.port == url.port && again.pathAndQuery == url.pathAndQuery,
            "URL round trip: \(url) -> \(again)")
    require(url.appending(pathAndQuery: "/z").pathAndQuery.hasSuffix("/z"), "appending")
}

/// True when `path` (from its first "/") climbs above its root as a lenient origin could read it:
/// `%2e` as a dot, `%2f`, `%5c` and `\` as separators, repeated slashes merged (nginx's default).
private func climbs(_ pathAndQuery: Substring) -> Bool {
    var bytes = Array(pathAndQuery.utf8)
    if let q = bytes.firstIndex(of: UInt8(ascii: "?")) { bytes.removeSubrange(q...) }
    var decoded: [UInt8] = []
    var i = 0
    while i < bytes.count {
        if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count {
            let esc = String(decoding: bytes[(i + 1)...(i + 2)], as: UTF8.self).lowercased()
            if esc == "2e" { decoded.append(UInt8(ascii: ".")); i += 3; continue }
            if esc == "2f" || esc == "5c" { decoded.append(UInt8(ascii: "/")); i += 3; continue }
        }
        decoded.append(bytes[i] == UInt8(ascii: "\\") ? UInt8(ascii: "/") : bytes[i])
        i += 1
    }
    var depth = 0
    for seg in decoded.split(separator: UInt8(ascii: "/")) { // empty segments merge away
        if seg.elementsEqual([46]) { continue }
        if seg.elementsEqual([46, 46]) { depth -= 1; if depth < 0 { return true } } else { depth += 1 }
    }
    return false
}

// MARK: - addresses

private func checkAddress(_ text: String) {
    _ = AddressPolicy.isInternalLiteral(host: text)
    _ = AddressPolicy.isInternal(ipv4: Array(text.utf8.prefix(4)))
    _ = AddressPolicy.isInternal(ipv6: Array(text.utf8.prefix(16)))

    if let v6 = IPv6Address.parse(text) {
        require(v6.count == 16, "IPv6 address of \(v6.count) bytes")
        let full = stride(from: 0, to: 16, by: 2).map { String(UInt16(v6[$0]) << 8 | UInt16(v6[$0 + 1]), radix: 16) }.joined(separator: ":")
        require(IPv6Address.parse(full) == v6, "IPv6 round trip: \(text) -> \(full)")
        if !text.contains("%") {
            require(AddressPolicy.isInternalLiteral(host: text) == AddressPolicy.isInternal(ipv6: v6), "IPv6 literal judged apart from its bytes")
        }
    }
    // Whatever the C library reads as an address, eddy reads as the same address.
    if let c = pton(AF_INET6, text, 16) {
        require(IPv6Address.parse(text) == c, "IPv6 \(text): inet_pton reads \(c), eddy \(String(describing: IPv6Address.parse(text)))")
        require(AddressPolicy.isInternalLiteral(host: text) == AddressPolicy.isInternal(ipv6: c), "IPv6 \(text) judged apart from its bytes")
    }
    if let c = pton(AF_INET, text, 4) {
        require(AddressPolicy.parseIPv4(text) == c, "IPv4 \(text): inet_pton reads \(c)")
    }
    if let v4 = AddressPolicy.parseIPv4(text) {
        require(AddressPolicy.parseIPv4(v4.map(String.init).joined(separator: ".")) == v4, "IPv4 round trip")
        require(AddressPolicy.isInternal(ipv6: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] + v4) == AddressPolicy.isInternal(ipv4: v4),
                "IPv4-mapped IPv6 judged apart from its IPv4 address")
    }
}

private func pton(_ family: Int32, _ text: String, _ size: Int) -> [UInt8]? {
    guard !text.utf8.contains(0) else { return nil }
    var out = [UInt8](repeating: 0, count: size)
    let ok = out.withUnsafeMutableBytes { inet_pton(family, text, $0.baseAddress) }
    return ok == 1 ? out : nil
}

/// An independent, deliberately small judgement: loopback, unspecified, RFC 1918 and link-local
/// literals as the C library reads them (IPv4, IPv6, IPv4-mapped IPv6; a zone id is dropped).
private func oracleInternal(_ host: String) -> Bool {
    func v4(_ a: ArraySlice<UInt8>) -> Bool {
        let a = Array(a)
        return a[0] == 127 || a[0] == 10 || a[0] == 0 || (a[0] == 192 && a[1] == 168) || (a[0] == 169 && a[1] == 254)
            || (a[0] == 172 && a[1] & 0xF0 == 16)
    }
    if let a = pton(AF_INET, host, 4) { return v4(a[...]) }
    let noZone = String(host.prefix { $0 != "%" })
    guard let a = pton(AF_INET6, noZone, 16) else { return false }
    if a[0..<15].allSatisfy({ $0 == 0 }) && a[15] <= 1 { return true }            // ::, ::1
    if a[0..<10].allSatisfy({ $0 == 0 }) && a[10] == 0xFF && a[11] == 0xFF { return v4(a[12...]) } // ::ffff:a.b.c.d
    return (a[0] == 0xFE && a[1] & 0xC0 == 0x80) || a[0] & 0xFE == 0xFC              // fe80::/10, fc00::/7
}

// MARK: - path normalization

private func checkNormalizer(_ path: String) {
    guard case let .success(n) = PathNormalizer.normalize(path) else { return }
    // Bytes, not Characters: "/" followed by a combining mark is one Character.
    let bytes = Array(n.utf8), slash = UInt8(ascii: "/")
    require(bytes.first == slash, "normalized path without /")
    let p = bytes.split(separator: UInt8(ascii: "?"), maxSplits: 1, omittingEmptySubsequences: false)[0]
    require(!p.split(separator: slash, omittingEmptySubsequences: false).contains { $0.elementsEqual([46]) || $0.elementsEqual([46, 46]) },
            "dot segment left in \(n)")
    require(!climbs(Substring(n)), "normalized \(path) -> \(n) still climbs as an origin may read it")
    require(PathNormalizer.normalize(n) == .success(n), "normalizing \(path) -> \(n) again changes it")
}

// MARK: - helpers

/// The input split at newlines, each field decoded as UTF-8 (invalid bytes become U+FFFD).
private func fields(_ bytes: UnsafeRawBufferPointer) -> [String] {
    guard !bytes.isEmpty else { return [] }
    return bytes.split(separator: 10, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
}

/// Reports a broken invariant as a crash, which libFuzzer records with the input.
private func require(_ ok: Bool, _ what: @autoclosure () -> String, line: UInt = #line) {
    if !ok { fatalError("invariant: \(what())", line: line) }
}
