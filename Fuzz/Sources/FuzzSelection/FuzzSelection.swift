// Fuzzes what a download reads from hostile text: variant predicates and auxiliary specs, the
// multivariant and media playlist models, and the selection over them.
//
// Input: a first line, read as an auxiliary configuration (predicate, audio=, subtitles=), then a
// playlist body. Errors are fine; crashes, hangs and broken invariants are not.
import EddyCore
import EddyHLS

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let text = String(decoding: bytes, as: UTF8.self)
    let newline = text.firstIndex(of: "\n") ?? text.endIndex
    let spec = String(text[..<newline])
    let body = newline == text.endIndex ? "" : String(text[text.index(after: newline)...])

    var config = DownloadConfiguration()
    do {
        config = try DownloadConfiguration.parseAuxiliary(spec)
    } catch {
        require(error.position >= 0 && error.position <= spec.count + 1, "error position \(error.position) outside \(spec.count)")
    }
    if case let .failure(e) = Result(catching: { () throws(PredicateSyntaxError) in try VariantPredicate.parse(spec) }) {
        require(e.position >= 0 && e.position <= spec.count, "predicate error position \(e.position) outside \(spec.count)")
    }

    let m = MultivariantPlaylist(body)
    require(m.variants.count <= MultivariantPlaylist.maxEntries && m.renditions.count <= MultivariantPlaylist.maxEntries, "unbounded")
    for (i, v) in m.variants.enumerated() { require(v.index == i && v.bandwidth >= 0, "variant \(i)") }

    let media = MediaPlaylist(body)
    require(media.segments.count <= MediaPlaylist.maxSegments, "unbounded segments")
    require(m.variants.isEmpty || media.segments.isEmpty, "both variants and segments")
    for s in media.segments {
        require(s.duration >= 0 && s.duration.isFinite, "duration \(s.duration)")
        if let r = s.byteRange { require(r.lowerBound >= 0 && !r.isEmpty, "byte range \(r)") }
    }
    if let exact = media.exactBytes { require(exact >= 0, "exact bytes \(exact)") }

    for locale in [nil, "fr_FR.UTF-8"] {
        guard let s = try? AssetSelector.select(m, primary: config, auxiliary: [config], locale: locale) else { continue }
        let uris = s.uris
        require(Set(uris).count == uris.count, "a media playlist selected twice")
        let known = Set(m.variants.map(\.uri) + m.renditions.compactMap(\.uri))
        for u in uris { require(known.contains(u), "selected \(u), which the playlist does not name") }
        require(uris.first == s.primary.uri, "the primary's stream is not first")
    }
    return 0
}

/// Reports a broken invariant as a crash, which libFuzzer records with the input.
private func require(_ ok: Bool, _ what: @autoclosure () -> String, line: UInt = #line) {
    if !ok { fatalError("invariant: \(what())", line: line) }
}
