/// A request body on its way from the client's connection (the producer) to an upstream transfer
/// (the consumer), held in a bounded buffer (issue 33: streamed request bodies with
/// back-pressure, where evhttp read every body whole, up to `max_body_size` per connection).
///
/// The producer appends what the client sent and stops reading the socket once the buffer is
/// full (`append` says so); the consumer takes bytes as its transfer can send them, and a read
/// that finds nothing asks to be woken. Each call returns whom to wake, so that the wake-up, a
/// post to another loop, happens outside the lock the owner (`RequestBodyStream`) holds.
public struct BodyStreamStateMachine: Sendable {
    /// What a read gave.
    public enum Read: Equatable, Sendable {
        /// This many bytes were copied.
        case bytes(Int)
        /// Nothing yet: the consumer is woken when bytes, the end or a failure arrive.
        case wait
        /// The body is complete and every byte was read.
        case end
        /// The body will not complete (the client left, or its framing was invalid).
        case failed
    }

    /// Whom the caller must wake once it has let go of the lock.
    public enum Wake: Equatable, Sendable { case none, consumer, producer }

    /// Most bytes held; the producer pauses at this and resumes at half of it.
    public let capacity: Int
    private var buffer: [UInt8] = []
    private var start = 0
    private var ended = false
    private var failed = false
    /// The consumer went away: bytes are dropped, and the producer is never paused again.
    private var abandoned = false
    private var consumerWaiting = false
    private var producerWaiting = false
    /// Bytes taken from the producer so far.
    public private(set) var received = 0

    public init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    /// Bytes held, not yet read.
    public var buffered: Int { buffer.count - start }

    /// Takes `bytes` from the producer. `paused` true: the buffer is full, and the producer must
    /// stop reading its socket until it is woken.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) -> (paused: Bool, wake: Wake) {
        guard !ended, !failed else { return (false, .none) }
        received += bytes.count
        if abandoned { return (false, .none) }
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start) // compact: what was read goes
            start = 0
        }
        buffer.append(contentsOf: bytes)
        let wake = takeConsumerWake(bytes.isEmpty)
        guard buffered >= capacity else { return (false, wake) }
        producerWaiting = true
        return (true, wake)
    }

    /// The producer has given the last byte.
    public mutating func finish() -> Wake {
        guard !ended, !failed else { return .none }
        ended = true
        return takeConsumerWake(false)
    }

    /// The body will not complete.
    public mutating func fail() -> Wake {
        guard !ended, !failed else { return .none }
        failed = true
        buffer = []
        start = 0
        return takeConsumerWake(false)
    }

    /// Copies up to `into.count` bytes for the consumer.
    public mutating func read(into: UnsafeMutableRawBufferPointer) -> (read: Read, wake: Wake) {
        if failed { return (.failed, .none) }
        let n = min(buffered, into.count)
        guard n > 0 else {
            if ended { return (.end, .none) }
            consumerWaiting = true
            return (.wait, .none)
        }
        buffer.withUnsafeBytes { into.baseAddress!.copyMemory(from: $0.baseAddress! + start, byteCount: n) }
        start += n
        if start == buffer.count { buffer.removeAll(keepingCapacity: true); start = 0 }
        if producerWaiting && buffered <= capacity / 2 {
            producerWaiting = false
            return (.bytes(n), .producer)
        }
        return (.bytes(n), .none)
    }

    /// The consumer will read no more: what is held goes, and a paused producer resumes (to read
    /// the rest of the body off the socket and drop it, or to see the connection close).
    public mutating func abandon() -> Wake {
        guard !abandoned else { return .none }
        abandoned = true
        consumerWaiting = false
        buffer = []
        start = 0
        guard producerWaiting else { return .none }
        producerWaiting = false
        return .producer
    }

    private mutating func takeConsumerWake(_ nothingNew: Bool) -> Wake {
        guard consumerWaiting, !nothingNew else { return .none }
        consumerWaiting = false
        return .consumer
    }
}
