// Fuzzes the HLS playlist model: parsing, the kind, segment and key URIs, and URI rewriting, which
// must keep every byte that is not a URI (README: "rewrite URIs byte-exactly").
//
// Input: a playlist body. Valid UTF-8 is used as it is (as eddy does); other bytes are decoded with
// replacement characters, since the model accepts any String.
import EddyCore
import EddyHLS

private let resolver = TargetResolver(
    routes: [OriginRoute(prefix: "/v/", base: UpstreamURL.parse("https://cdn.example.com/")!)],
    allowHosts: [HostPattern("*.example.com")!, HostPattern("*")!])
private let base = UpstreamURL.parse("https://cdn.example.com/live/chan/index.m3u8?token=abc")!

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let raw = UnsafeRawBufferPointer(start: start, count: count)
    let bytes = Array(raw)
    let text = String(validating: bytes, as: UTF8.self) ?? String(decoding: bytes, as: UTF8.self)

    _ = HLSPlaylist.looksLikePlaylist(Array(bytes.prefix(10)))
    _ = HLSPlaylist.isPlaylistPath(text)
    _ = HLSPlaylist.hasDeliveryDirectives(text)
    _ = HLSPlaylist.isPlaylistType(text)

    let playlist = HLSPlaylist(text)
    require(playlist.text.utf8.elementsEqual(text.utf8), "parse and serialize is not byte-exact")
    for (i, line) in playlist.lines.enumerated() {
        require(!line.text.utf8.contains(10) && !line.text.utf8.contains(13), "line \(i) holds a line break")
        require(["\n", "\r\n", "\r"].contains(line.terminator) || (line.terminator.isEmpty && i == playlist.lines.count - 1),
                "line \(i) has terminator \(Array(line.terminator.utf8))")
        require(!line.text.isEmpty || !line.terminator.isEmpty, "empty last line")
    }

    switch playlist.kind {
    case .multivariant: require(playlist.segmentURIs.isEmpty, "segments in a multivariant playlist")
    case .vod: break
    case let .live(t): require(t > 0, "live playlist with target duration \(t)")
    }
    _ = playlist.keyURIs

    // Rewriting nothing changes nothing.
    var p = playlist
    require(p.rewriteURIs { _ in nil } == 0, "rewrite to nil counted a change")
    require(p.text.utf8.elementsEqual(text.utf8), "rewrite to nil changed the text")

    // Rewriting every URI to itself changes no byte either.
    var uris: [String] = []
    p = playlist
    let n = p.rewriteURIs { uris.append($0); return $0 }
    require(n == uris.count, "rewrite counted \(n) of \(uris.count) URIs")
    require(p.text.utf8.elementsEqual(text.utf8), "identity rewrite changed the text")

    // Rewriting to tokens and back restores every byte: nothing but the URIs was touched, and the
    // rewritten playlist has its URIs in the same places.
    p = playlist
    var seen = 0
    p.rewriteURIs { _ in seen += 1; return "u\(seen - 1)" }
    var back = HLSPlaylist(p.text)
    var next = 0
    back.rewriteURIs { token in
        require(token == "u\(next)", "URI \(next) reads \(token) after rewriting")
        next += 1
        return uris[next - 1]
    }
    require(next == uris.count, "\(next) URIs after rewriting, \(uris.count) before")
    require(back.text.utf8.elementsEqual(text.utf8), "rewriting to tokens and back is not byte-exact")

    // What eddy does: each URI to the eddy request-target of the URL it names.
    for form in [RequestForm.urlPrefix, .mapped] {
        var q = playlist
        q.rewriteURIs { uri in
            guard let target = URIReference.resolve(uri, against: base) else { return nil }
            guard let t = resolver.eddyTarget(for: target, form: form) else { return nil }
            // It routes to the URL, or to the same URL with its path normalized (RFC 3986 section 6.2.2).
            guard case let .upstream(u, _, _) = resolver.resolve(t),
                  u == target || u == normalized(target) else { fatalError("invariant: \(t) does not route to \(target)") }
            return t
        }
        require(q.lines.count == playlist.lines.count, "rewrite changed the line count")
        for (a, b) in zip(q.lines, playlist.lines) { require(a.terminator == b.terminator, "rewrite changed a line terminator") }
    }
    for uri in playlist.segmentURIs + playlist.keyURIs { _ = URIReference.resolve(uri, against: base) }
    fuzzRecording(playlist, text)
    return 0
}

/// A live recording fed reloads made of the input (its two halves, in both orders, and the whole
/// twice; hostile sequence numbers included): it never traps, and what it records is in strictly
/// increasing recording order.
private func fuzzRecording(_ playlist: HLSPlaylist, _ text: String) {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    let half = lines.count / 2
    let a = HLSPlaylist(lines[..<half].joined(separator: "\n")), b = HLSPlaylist(lines[half...].joined(separator: "\n"))
    var rec = LiveRecording()
    for p in [playlist, a, b, a, b, playlist, playlist] {
        rec.merge(p)
        let numbers = rec.segments.map(\.sequence)
        require(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "recorded numbers out of order: \(numbers.prefix(20))")
    }
    _ = HLSPlaylist(rec.text)
}

private func normalized(_ url: UpstreamURL) -> UpstreamURL? {
    guard case let .success(p) = PathNormalizer.normalize(url.pathAndQuery) else { return nil }
    return UpstreamURL(scheme: url.scheme, host: url.host, port: url.port, pathAndQuery: p)
}

/// Reports a broken invariant as a crash, which libFuzzer records with the input.
private func require(_ ok: Bool, _ what: @autoclosure () -> String, line: UInt = #line) {
    if !ok { fatalError("invariant: \(what())", line: line) }
}
