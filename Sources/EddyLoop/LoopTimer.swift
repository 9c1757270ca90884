import CLibevent

/// A one-shot or repeating timer on an `EventLoop`.
public final class LoopTimer {
    private var event: OpaquePointer?
    private let action: () -> Void
    /// The monotonic time before which a timer armed by `schedule(at:)` must not act.
    private var deadline: Double?

    /// Creates a disarmed timer; `repeating` keeps it armed after each fire.
    public init(loop: EventLoop, repeating: Bool = false, action: @escaping () -> Void) {
        self.action = action
        let flags: Int16 = repeating ? eddy_EV_PERSIST : 0
        event = event_new(loop.base, -1, flags, { _, _, arg in
            Unmanaged<LoopTimer>.fromOpaque(arg!).takeUnretainedValue().fire()
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { if let event { event_free(event) } }

    /// Arms (or re-arms) the timer to fire after `seconds`.
    public func schedule(after seconds: Double) {
        deadline = nil
        arm(seconds)
    }

    /// Arms the timer to fire at `deadline` on `EventLoop.monotonic()`'s clock, and never before.
    /// libevent counts a timeout from the loop's cached time, which lags the clock during a busy
    /// callback, so a timer can fire a little early; one that does is re-armed for the rest.
    public func schedule(at deadline: Double) {
        self.deadline = deadline
        arm(Swift.max(0, deadline - EventLoop.monotonic()))
    }

    private func fire() {
        if let d = deadline {
            let left = d - EventLoop.monotonic()
            if left > 0 { return arm(left) }
            deadline = nil
        }
        action()
    }

    private func arm(_ seconds: Double) {
        var tv = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1e6))
        event_add(event, &tv)
    }

    /// Disarms the timer.
    public func cancel() { event_del(event) }

    /// True while armed.
    public var isPending: Bool { event_pending(event, eddy_EV_TIMEOUT, nil) != 0 }
}
