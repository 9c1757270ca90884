import CLibevent

/// Runs an action on the loop thread when a signal arrives (libevent turns the signal into an event,
/// so the action may do anything, unlike a raw signal handler).
public final class SignalWatcher {
    private var event: OpaquePointer?
    private let action: () -> Void

    public init(loop: EventLoop, signal: Int32, action: @escaping () -> Void) {
        self.action = action
        event = event_new(loop.base, signal, eddy_EV_SIGNAL | eddy_EV_PERSIST, { _, _, arg in
            Unmanaged<SignalWatcher>.fromOpaque(arg!).takeUnretainedValue().action()
        }, Unmanaged.passUnretained(self).toOpaque())
        event_add(event, nil)
    }

    deinit { if let event { event_del(event); event_free(event) } }
}
