import CLibevent

/// A one-shot or repeating timer on an `EventLoop`.
public final class LoopTimer {
    private var event: OpaquePointer?
    private let action: () -> Void

    /// Creates a disarmed timer; `repeating` keeps it armed after each fire.
    public init(loop: EventLoop, repeating: Bool = false, action: @escaping () -> Void) {
        self.action = action
        let flags: Int16 = repeating ? eddy_EV_PERSIST : 0
        event = event_new(loop.base, -1, flags, { _, _, arg in
            Unmanaged<LoopTimer>.fromOpaque(arg!).takeUnretainedValue().action()
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { if let event { event_free(event) } }

    /// Arms (or re-arms) the timer to fire after `seconds`.
    public func schedule(after seconds: Double) {
        var tv = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1e6))
        event_add(event, &tv)
    }

    /// Disarms the timer.
    public func cancel() { event_del(event) }

    /// True while armed.
    public var isPending: Bool { event_pending(event, eddy_EV_TIMEOUT, nil) != 0 }
}
