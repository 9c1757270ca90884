// Fuzzes the connection's wire parsers: RequestHeadParser (a request's head) and
// ChunkedBodyDecoder (a chunked body after it).
//
// Input: byte 0 picks how the rest arrives (1 to 16 bytes at a time, as a connection reads);
// the rest is what a client sent: a head, then a body, or anything.
import EddyCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let all = UnsafeRawBufferPointer(start: start, count: count)
    let step = Int(all[0] % 16) + 1
    let input = UnsafeRawBufferPointer(rebasing: all[1...])
    var limits = RequestHeadParser.Limits()
    limits.maxHeadBytes = 2048 // small enough that the fuzzer reaches every limit
    limits.maxTargetBytes = 512
    limits.maxFields = 16

    var whole = RequestHeadParser(limits: limits)
    let outcome = whole.parse(input)
    // However the bytes are split, the outcome is the same (the search resumes; nothing is judged early).
    require(trickled(input, step: step, limits: limits) == outcome, "split by \(step) differs from whole: \(outcome)")
    switch outcome {
    case .incomplete:
        require(input.count <= limits.maxHeadBytes, "incomplete past the limit")
    case let .invalid(status, _):
        require([400, 413, 414, 417, 431, 505].contains(status), "status \(status)")
    case let .head(head, length):
        require(length > 0 && length <= min(input.count, limits.maxHeadBytes), "head length \(length) of \(input.count)")
        check(head)
        // Sent again as eddy would write it, the head reads back the same.
        var wide = limits
        wide.maxHeadBytes = 1 << 20
        var again = RequestHeadParser(limits: wide)
        let wire = head.wireBytes
        let back = wire.withUnsafeBytes { again.parse($0) }
        require(back == .head(head, length: wire.count), "round trip: \(head) -> \(back)")
        if head.body == .chunked { checkChunked(UnsafeRawBufferPointer(rebasing: input[length...]), step: step) }
    }
    // The body decoder on anything, too: a body's bytes are the client's to choose.
    checkChunked(input, step: step)
    return 0
}

private func trickled(_ input: UnsafeRawBufferPointer, step: Int, limits: RequestHeadParser.Limits) -> RequestHeadParser.Outcome {
    var p = RequestHeadParser(limits: limits)
    var n = 0
    while true {
        n = min(input.count, n + step)
        let out = p.parse(UnsafeRawBufferPointer(rebasing: input[0..<n]))
        if out != .incomplete || n == input.count { return out }
    }
}

private func check(_ h: RequestHead) {
    require(!h.method.isEmpty && h.method.utf8.allSatisfy(RequestFraming.isTokenChar), "method \(h.method)")
    require(!h.target.isEmpty && h.target.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "target \(h.target)")
    require(h.major == 1 && (h.minor == 0 || h.minor == 1), "version \(h.major).\(h.minor)")
    for (n, v) in h.headers {
        require(!n.isEmpty && n.utf8.allSatisfy(RequestFraming.isTokenChar), "field name \(n)")
        require(!v.utf8.contains { ($0 < 0x20 && $0 != 9) || $0 == 0x7F }, "control in \(n)")
        require(v.utf8.first != 32 && v.utf8.first != 9 && v.utf8.last != 32 && v.utf8.last != 9, "untrimmed \(n)")
    }
    let te = h.headers["Transfer-Encoding"] != nil, cl = h.headers["Content-Length"] != nil
    require(!(te && cl), "both framings accepted")
    switch h.body {
    case .chunked: require(te, "chunked without Transfer-Encoding")
    case let .length(n): require(cl && n > 0 && n <= 64 << 20, "length \(n)")
    case .none: require(!te, "Transfer-Encoding ignored")
    }
    require(!h.expectsContinue || (h.minor == 1 && h.body != .none), "100-continue without a body to wait for")
}

/// Decodes `input` whole and `step` bytes at a time: the same body, the same ending, at the same place.
private func checkChunked(_ input: UnsafeRawBufferPointer, step: Int) {
    var limits = ChunkedBodyDecoder.Limits()
    limits.maxLineBytes = 64
    limits.maxTrailerBytes = 256
    limits.maxBodyBytes = 1 << 16
    let a = decode(input, step: input.count, limits: limits), b = decode(input, step: step, limits: limits)
    require(a.body == b.body && a.ending == b.ending && a.used == b.used, "chunked split by \(step) differs")
    require(a.body.count <= input.count && a.used <= input.count, "decoded more than given")
}

private func decode(_ input: UnsafeRawBufferPointer, step: Int, limits: ChunkedBodyDecoder.Limits)
    -> (body: [UInt8], ending: ChunkedBodyDecoder.Event, used: Int) {
    var d = ChunkedBodyDecoder(limits: limits)
    var body: [UInt8] = [], at = 0, available = 0
    while true {
        available = min(input.count, max(available, at) + max(step, 1))
        while at < available {
            let (event, consumed) = d.next(UnsafeRawBufferPointer(rebasing: input[at..<available]))
            require(consumed <= available - at, "consumed past the input")
            if case let .data(r) = event {
                require(!r.isEmpty && r.upperBound == consumed, "data range \(r) of \(consumed)")
                body += input[(at + r.lowerBound)..<(at + r.upperBound)]
            }
            at += consumed
            switch event {
            case .data: continue
            case .needMore: require(at == available, "needMore before the end")
            case .end, .invalid: return (body, event, at)
            }
        }
        if available == input.count { return (body, .needMore, at) }
    }
}

private func require(_ ok: Bool, _ what: @autoclosure () -> String, line: UInt = #line) {
    if !ok { fatalError("invariant: \(what())", line: line) }
}
