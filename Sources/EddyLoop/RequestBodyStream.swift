import EddyCore

/// A request body passed on while it arrives: the client's connection appends, an upstream
/// transfer reads, possibly on another loop (a `RemoteRequest`'s home). The buffer is bounded
/// (`BodyStreamStateMachine`): a full one stops the connection reading its socket, so a client
/// sending faster than the origin takes costs `capacity` bytes, not its body's size.
///
/// Each side registers how it is woken, as a job posted to its own loop's mailbox: a wake-up
/// never runs inside the other side's call (the consumer's is a `curl_easy_pause`, which may
/// call straight back into a read).
public final class RequestBodyStream: @unchecked Sendable {
    /// The body's declared length (Content-Length); nil for a chunked body.
    public let length: Int?
    private struct State {
        var machine: BodyStreamStateMachine
        var wakeConsumer: (() -> Void)?
        var wakeProducer: (() -> Void)?
    }
    private let state: Locked<State>

    /// Bytes held by default: four of curl's 64 KiB upload buffers.
    public static let defaultCapacity = 256 << 10

    public init(length: Int?, capacity: Int = RequestBodyStream.defaultCapacity) {
        self.length = length
        state = Locked(State(machine: BodyStreamStateMachine(capacity: capacity)))
    }

    /// How the consumer is woken after a read returned `.wait`: `job` runs on `mailbox`'s loop.
    public func onReadable(via mailbox: LoopMailbox, _ job: @escaping () -> Void) {
        state.withLock { $0.wakeConsumer = { mailbox.post(job) } }
    }

    /// How the producer is woken after an append paused it.
    func onSpace(via mailbox: LoopMailbox, _ job: @escaping () -> Void) {
        state.withLock { $0.wakeProducer = { mailbox.post(job) } }
    }

    /// Appends client bytes; true when the producer must pause until woken.
    func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let (paused, wake) = state.withLock { s -> (Bool, (() -> Void)?) in
            let r = s.machine.append(bytes)
            return (r.paused, waker(r.wake, s))
        }
        wake?()
        return paused
    }

    /// The last byte arrived.
    func finish() { state.withLock { s in waker(s.machine.finish(), s) }?() }

    /// The body will not complete (the client left, or sent a broken chunk).
    func fail() { state.withLock { s in waker(s.machine.fail(), s) }?() }

    /// Copies what is held into `buffer` (see `BodyStreamStateMachine.read`).
    public func read(into buffer: UnsafeMutableRawBufferPointer) -> BodyStreamStateMachine.Read {
        let (read, wake) = state.withLock { s -> (BodyStreamStateMachine.Read, (() -> Void)?) in
            let r = s.machine.read(into: buffer)
            if r.read == .end || r.read == .failed { s.wakeConsumer = nil } // read to its end: it may hold the reader
            return (r.read, waker(r.wake, s))
        }
        wake?()
        return read
    }

    /// The consumer is done with the body, read or not: the producer no longer waits for it.
    public func abandon() {
        state.withLock { s -> (() -> Void)? in
            s.wakeConsumer = nil
            return waker(s.machine.abandon(), s)
        }?()
    }

    /// Bytes the client has sent of the body so far.
    public var received: Int { state.withLock { $0.machine.received } }

    private func waker(_ wake: BodyStreamStateMachine.Wake, _ s: State) -> (() -> Void)? {
        switch wake {
        case .none: return nil
        case .consumer: return s.wakeConsumer
        case .producer: return s.wakeProducer
        }
    }
}
