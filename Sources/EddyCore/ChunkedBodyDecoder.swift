/// Decodes a chunked request body (RFC 9112 section 7.1) as it arrives, without holding it: each
/// call hands back where the next run of body bytes is in the input, so a connection can pass
/// them on and read more only as they are taken (back-pressure).
///
/// Strict, as a smuggling defence: chunk lines end in CRLF (a bare LF or CR is refused: section
/// 2.2's leniency is for the start line and fields), a chunk size is 1 to 15 hex digits, its
/// extensions and the trailer section are bounded, and trailer fields are read and dropped
/// (section 7.1.2: nothing eddy forwards carries them).
public struct ChunkedBodyDecoder: Sendable {
    /// Bounds on what a client may make eddy scan.
    public struct Limits: Equatable, Sendable {
        /// A chunk-size line, its extensions included.
        public var maxLineBytes = 4096
        /// The trailer section.
        public var maxTrailerBytes = 16 << 10
        /// Body bytes in all (413 past it).
        public var maxBodyBytes = 64 << 20
        public init() {}
    }

    /// What the next bytes are.
    public enum Event: Equatable, Sendable {
        /// `input[range]` is body data: pass it on.
        case data(Range<Int>)
        /// Everything given was framing; read more.
        case needMore
        /// The body ended; bytes after `consumed` belong to the next request.
        case end
        /// Refuse and close (`tooLarge`: 413, otherwise 400).
        case invalid(reason: String, tooLarge: Bool)
    }

    private enum State: Equatable, Sendable {
        case size(digits: Int), sizeExtension, sizeLF, data(remaining: Int), dataCR, dataLF
        case trailerStart, trailer, trailerLF, finalLF, done
        case failed(reason: String, tooLarge: Bool)
    }

    public let limits: Limits
    private var state = State.size(digits: 0)
    private var chunkSize = 0
    private var lineBytes = 0
    private var trailerBytes = 0
    /// Body bytes decoded so far.
    public private(set) var decoded = 0

    public init(limits: Limits = Limits()) { self.limits = limits }

    /// Reads `input` from its start up to the next run of body data, the body's end, or the
    /// input's end. `consumed`: bytes of `input` dealt with (through the data run, if any).
    public mutating func next(_ input: UnsafeRawBufferPointer) -> (event: Event, consumed: Int) {
        let b = input.bindMemory(to: UInt8.self)
        var i = 0
        while true {
            if case let .failed(reason, tooLarge) = state { return (.invalid(reason: reason, tooLarge: tooLarge), i) }
            if state == .done { return (.end, i) }
            guard i < b.count else { return (.needMore, i) }
            if case let .data(remaining) = state {
                let n = min(remaining, b.count - i)
                state = n == remaining ? .dataCR : .data(remaining: remaining - n)
                decoded += n
                return (.data(i..<i + n), i + n)
            }
            step(b[i])
            i += 1
        }
    }

    /// One byte of framing.
    private mutating func step(_ c: UInt8) {
        switch state {
        case let .size(digits):
            lineBytes += 1
            if let h = HexDigit.value(c) {
                guard digits < 15 else { return fail("chunk size too large") }
                chunkSize = chunkSize * 16 + Int(h)
                guard decoded + chunkSize <= limits.maxBodyBytes else { return fail("request body too large", tooLarge: true) }
                state = .size(digits: digits + 1)
            } else if digits == 0 {
                fail("invalid chunk size")
            } else if c == .cr {
                state = .sizeLF
            } else if c == UInt8(ascii: ";") || c == .space || c == .tab {
                state = .sizeExtension // chunk-ext = *( BWS ";" BWS name [ BWS "=" BWS value ] )
            } else {
                fail("invalid chunk size")
            }
        case .sizeExtension:
            lineBytes += 1
            guard lineBytes <= limits.maxLineBytes else { return fail("chunk extension too long") }
            if c == .cr { state = .sizeLF } else if (c < 0x20 && c != .tab) || c == 0x7F { fail("invalid chunk extension") }
        case .sizeLF:
            guard c == .lf else { return fail("chunk size line not ended by CRLF") }
            lineBytes = 0
            if chunkSize == 0 {
                state = .trailerStart
            } else {
                state = .data(remaining: chunkSize)
                chunkSize = 0
            }
        case .dataCR:
            state = c == .cr ? .dataLF : .failed(reason: "chunk data not followed by CRLF", tooLarge: false)
        case .dataLF:
            state = c == .lf ? .size(digits: 0) : .failed(reason: "chunk data not followed by CRLF", tooLarge: false)
        case .trailerStart, .trailer:
            trailerBytes += 1
            guard trailerBytes <= limits.maxTrailerBytes else { return fail("trailer section too large") }
            if c == .cr {
                state = state == .trailerStart ? .finalLF : .trailerLF
            } else if c == .lf || (c < 0x20 && c != .tab) || c == 0x7F {
                fail("invalid trailer field")
            } else if state == .trailerStart && (c == .space || c == .tab) {
                fail("obsolete line folding in the trailer")
            } else {
                state = .trailer
            }
        case .trailerLF:
            trailerBytes += 1
            state = c == .lf ? .trailerStart : .failed(reason: "trailer field not ended by CRLF", tooLarge: false)
        case .finalLF:
            state = c == .lf ? .done : .failed(reason: "chunked body not ended by CRLF", tooLarge: false)
        case .data, .done, .failed:
            break // handled by `next`
        }
    }

    private mutating func fail(_ reason: String, tooLarge: Bool = false) {
        state = .failed(reason: reason, tooLarge: tooLarge)
    }
}
