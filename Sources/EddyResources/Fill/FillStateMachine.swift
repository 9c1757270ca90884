import EddyCore

/// The byte bookkeeping of one fill, as a value with no I/O (swift-nio's state-machine style):
/// where the fill writes next and where it stops, what to do with each chunk the origin sends, and
/// which whole blocks may be confirmed. `FillSession` feeds it events and performs the actions.
package struct FillStateMachine {
    private(set) var state: FillState = .awaitingHead
    /// First offset asked for; after the head, where the body starts.
    private(set) var start: Int
    /// End (exclusive) of the bytes wanted; nil = to the end. Other fills may shorten it.
    private(set) var end: Int?
    /// The next offset to be written; bytes in `dataStart..<cursor` are on disk.
    private(set) var cursor: Int
    private(set) var dataStart: Int
    /// Everything below this offset (from `dataStart`) has been confirmed.
    private(set) var confirmedUpTo = 0
    let blocks: BlockLayout

    init(start: Int, end: Int?, blocks: BlockLayout = .standard) {
        self.start = start
        self.end = end
        cursor = start
        dataStart = start
        self.blocks = blocks
    }

    /// Another fill covers the bytes from `end` on: this one stops there.
    mutating func shorten(to end: Int) { self.end = end }

    /// Bytes written but not yet confirmed: readers may take them from here.
    var unconfirmedWindow: Range<Int> {
        Swift.min(Swift.max(dataStart, confirmedUpTo), cursor)..<cursor
    }

    /// What to do with a chunk of body bytes.
    enum ChunkAction: Equatable {
        /// Write the first `count` bytes at `cursor`, then report `written(count:length:)`.
        case write(count: Int)
        /// Keep the bytes (curl offers them again on resume) until the cache has room.
        case pause
        /// Stop quietly: nothing more is wanted.
        case finish
        /// Stop and fail with the reason.
        case fail(String)
    }

    /// The origin's head was checked: the body starts at `bodyStart`. `isFull` when the origin
    /// answered 200 to a Range request: the whole body from byte 0, to its end. `bodyEnd`: where
    /// a 206's extent ends, which may be short of what was asked (RFC 9110 section 15.3.7).
    mutating func headVerified(bodyStart: Int, isFull: Bool, bodyEnd: Int? = nil) {
        state = .streaming
        start = bodyStart
        dataStart = bodyStart
        cursor = bodyStart
        confirmedUpTo = 0
        if isFull { end = nil }
        if let bodyEnd { end = Swift.min(end ?? bodyEnd, bodyEnd) }
    }

    /// The span asked for turned out open-ended (a suffix range).
    mutating func openEnd() { end = nil }

    /// A chunk of `count` bytes arrived. `length` is the resource's length when known; `hasReaders`
    /// whether any response is open on the resource; `throttled` whether the cache is full of bytes
    /// responses still need and nobody waits on this fill.
    mutating func chunkArrived(_ count: Int, length: Int?, hasReaders: Bool, isPrefetch: Bool, throttled: Bool) -> ChunkAction {
        if throttled { return .pause }
        if let length, cursor + count > length { return .fail("origin sent more than the \(length) bytes it announced") }
        if !hasReaders && !isPrefetch {
            // The rule for a client that leaves: while any response is open on the resource, fills
            // run to their end; once none is, the fill completes the block it is in (so no fetched
            // byte of it is wasted) and stops there. Nobody pays for bytes nobody asked for.
            let boundary = blocks.ceiling(cursor)
            if end.map({ $0 > boundary }) ?? true { end = boundary }
            if cursor >= boundary { return .finish }
        }
        var n = count
        if let e = end, cursor + n > e { n = Swift.max(0, e - cursor) }
        return .write(count: n)
    }

    /// `count` bytes were written at `cursor`. Returns the bytes confirmable since the last
    /// confirmation (see `newlyConfirmable`), and whether the wanted span is complete.
    /// Blocks confirmed before are never returned again: they may have been evicted meanwhile.
    mutating func written(_ count: Int, length: Int?) -> (confirm: Range<Int>?, done: Bool) {
        cursor += count
        let done = end.map { cursor >= $0 } ?? false
        return (newlyConfirmable(length: length, spanEnded: done), done)
    }

    /// The transfer ended without an error.
    enum Completion: Equatable {
        /// The span is complete; `length` is set when the body's length was learned only now
        /// (no Content-Length: RFC 9112 section 6.3), with the tail blocks to confirm.
        case complete(learnedLength: Int?, confirm: Range<Int>?)
        case fail(String)
    }

    /// The transfer ended cleanly; `length` is the resource's length as stored, which a body
    /// without one sets when `canLearnLength` (the stored version is still this fill's).
    mutating func transferEnded(length: Int?, canLearnLength: Bool = true) -> Completion {
        guard state == .streaming else { return .fail("upstream ended without a usable response") }
        if length == nil && canLearnLength {
            return .complete(learnedLength: cursor, confirm: newlyConfirmable(length: cursor))
        }
        if let e = end ?? length, cursor < e { return .fail("upstream body ended at \(cursor), expected \(e)") }
        return .complete(learnedLength: nil, confirm: nil)
    }

    /// True when this fill will write `offset` soon: it covers it and its cursor is at most
    /// `lookahead` bytes before it (waiting longer would hurt a far seek's first byte).
    func willCover(_ offset: Int, lookahead: Int) -> Bool {
        guard state.isActive else { return false }
        let endOK = end.map { offset < $0 } ?? true
        if state == .awaitingHead { return offset >= start && endOK && offset - start <= lookahead }
        return offset >= dataStart && endOK && offset - cursor <= lookahead
    }

    mutating func finish() { if state.isActive { state = .finished } }
    mutating func fail(_ reason: String) { if state.isActive { state = .failed(reason) } }

    /// The transfer broke off (cut, reset, stalled, refused a write) after writing
    /// `dataStart..<cursor` from this response. Those bytes are whole and of this version, so
    /// they are confirmed up to the cursor, not only to the last block boundary it passed: the
    /// next fill asks from the byte reached, and a later 206 of the same version completes the
    /// block (RFC 9111 section 3.4), where an origin that cuts every transfer inside a block would
    /// otherwise be asked for that block's start again and again. Returns the range to confirm,
    /// nil when the body had not begun or nothing new was written; the fill fails either way.
    mutating func breakOff(_ reason: String) -> Range<Int>? {
        let keep = state == .streaming ? newlyConfirmable(length: nil, spanEnded: true) : nil
        fail(reason)
        return keep
    }

    /// Everything written from `dataStart` came whole from this response, so it is confirmed up to
    /// the last block boundary the cursor passed, or the resource's end; and, once the span is
    /// done, up to the cursor: a span may start or stop inside a block (a suffix, another fill's
    /// start, the extent an origin chose to send), and those bytes are kept, not fetched again.
    private mutating func newlyConfirmable(length: Int?, spanEnded: Bool = false) -> Range<Int>? {
        let hi = spanEnded || cursor == length ? cursor : blocks.floor(cursor)
        let lo = Swift.max(dataStart, confirmedUpTo)
        guard hi > lo else { return nil }
        confirmedUpTo = hi
        return lo..<hi
    }
}
