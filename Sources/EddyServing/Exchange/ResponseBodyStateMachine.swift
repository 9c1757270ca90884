import EddyCore

/// What a cached response sends next, as a value: its planned pieces (literal bytes such as
/// multipart boundaries, and ranges of the resource) in order, the position in the current one,
/// and what it has served. `CacheExchange.pump` asks for the next step with what it knows now (the
/// connection's queue, the bytes readable at the position) and performs it: events in, actions
/// out. Nothing here touches a socket, a file or a ticket.
struct ResponseBodyStateMachine: Equatable {
    enum Action: Equatable {
        /// Write a literal piece (it is behind the machine already).
        case write([UInt8])
        /// A resource piece begins at `position`: move the ticket there, with the end still needed.
        case seek(position: Int, neededEnd: Int)
        /// Send `count` resource bytes at `offset`, then report `sent(count)`; if they turn out
        /// damaged instead, ask again (fewer bytes are readable then).
        case send(offset: Int, count: Int)
        /// The connection's queue is full: wait until it drains.
        case waitForDrain
        /// Nothing is readable at the position, which `end` bounds: wait for a fill (or start one).
        case waitForBytes(end: Int)
        /// Every piece has gone out.
        case complete
    }

    private(set) var pieces: [ResponsePiece] = []
    private(set) var index = 0
    /// The resource offset of the next byte to send.
    private(set) var position = 0
    /// Body bytes handed to the connection.
    private(set) var bytesServed = 0
    /// The end of the piece being waited on (an uncached tail resumes to it).
    private(set) var pieceEnd = Int.max
    /// A seek owed after a literal piece went out, returned by the next `next`.
    private var pendingSeek: Action?

    /// Most bytes sent per step.
    let stepBytes: Int
    /// The queue depth at which the response waits for a drain.
    let highWater: Int

    init(stepBytes: Int, highWater: Int) {
        self.stepBytes = stepBytes
        self.highWater = highWater
    }

    /// The pieces of the response about to be sent (or none, when it is not streamed).
    mutating func plan(_ pieces: [ResponsePiece]) {
        self.pieces = pieces
        index = 0
        pendingSeek = nil
    }

    /// Streaming starts: the position moves to the first piece's, if it is the resource's.
    /// Returns where the ticket reads from, and to.
    mutating func start() -> (position: Int, neededEnd: Int) {
        if case let .resource(range)? = pieces.first { position = range.lowerBound }
        return (position, neededEnd)
    }

    /// True when the current piece is a range of the resource (its version must still hold).
    var isOnResource: Bool {
        guard index < pieces.count, case .resource = pieces[index] else { return false }
        return true
    }

    /// The end of the bytes this response still needs: the end of its last resource piece.
    var neededEnd: Int {
        var end = position + 1
        for case let .resource(range) in pieces[Swift.min(index, pieces.count)...] { end = Swift.max(end, range.upperBound) }
        return end
    }

    /// The next step, given the bytes `queued` on the connection, the resource's `length` (nil
    /// while unknown) and the bytes readable at an offset.
    mutating func next(queued: Int, length: Int?, available: (Int) -> Int) -> Action {
        if let seek = pendingSeek {
            pendingSeek = nil
            return seek
        }
        while index < pieces.count {
            if queued >= highWater { return .waitForDrain }
            switch pieces[index] {
            case let .bytes(b):
                pendingSeek = advance()
                return .write(b)
            case let .resource(range):
                let end = Swift.min(range.upperBound, length ?? Int.max)
                if position >= end {
                    if end == Int.max { return wait(end: end) }
                    if let seek = advance() { return seek }
                    continue
                }
                let readable = available(position)
                if readable == 0 { return wait(end: end) }
                return .send(offset: position, count: Swift.min(readable, end - position, stepBytes))
            }
        }
        return .complete
    }

    /// `count` bytes at the position went out.
    mutating func sent(_ count: Int) {
        position += count
        bytesServed += count
    }

    /// The whole body went out in one reply (a small hit, a rewritten playlist).
    mutating func servedWhole(_ count: Int) { bytesServed = count }

    /// A playlist waits for its bytes from `position` on.
    mutating func waitForPlaylist(at position: Int, end: Int) {
        self.position = position
        pieceEnd = end
    }

    /// Moves past the current piece; a `.seek` when the next one is the resource's.
    private mutating func advance() -> Action? {
        index += 1
        guard index < pieces.count, case let .resource(range) = pieces[index] else { return nil }
        position = range.lowerBound
        return .seek(position: position, neededEnd: neededEnd)
    }

    private mutating func wait(end: Int) -> Action {
        pieceEnd = end
        return .waitForBytes(end: end)
    }
}
