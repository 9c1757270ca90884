import CLibevent
import EddyCore
import Glibc

/// Connection upkeep: a header timeout that trickled bytes do not reset, an idle timeout, and
/// shedding idle connections when accept runs out of descriptors.
extension HTTPServer {
    /// Runs every second: closes connections whose request headers have taken longer than the
    /// header timeout (slowloris), those idle past the idle timeout (no request, or a response
    /// the client stopped reading), and takes the reserve descriptor back when it can.
    func sweepConnections() {
        let now = EventLoop.monotonic()
        let header = Double(limits.headerTimeout), idle = Double(limits.idleTimeout)
        for c in Array(connections.values) where !c.closed {
            if let t = c.headerStartedAt, now - t > header {
                headerTimeouts += 1
                c.close()
            } else if c.stalled(now: now, after: idle) {
                c.close()
            }
        }
        if reserveFD < 0 { reserveFD = open("/dev/null", O_RDONLY | O_CLOEXEC) }
    }

    /// accept() failed. Out of descriptors, libevent would retry at once, forever, logging each
    /// time (332 MB of warnings in 20 s, measured). Instead: free the reserve descriptor so the
    /// next accept succeeds, close the newest idle or header-incomplete connection to make room,
    /// and pause accepting briefly; with nothing to shed, accept and close the newcomer.
    func acceptFailed(errno err: Int32, listener: OpaquePointer) {
        guard err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM else { return }
        acceptFailures += 1
        let now = EventLoop.monotonic()
        if now - lastAcceptWarning >= 10 {
            lastAcceptWarning = now
            onWarning?("out of descriptors accepting connections (\(String(cString: strerror(err)))); shedding idle connections, \(acceptFailures) failures so far")
        }
        if reserveFD >= 0 {
            Glibc.close(reserveFD)
            reserveFD = -1
        }
        // Descriptors are the process's: with no idle connection here, another loop sheds one.
        if !shedIdleConnection() && budget?.shedElsewhere(than: self) != true {
            let fd = Glibc.accept(evconnlistener_get_fd(listener), nil, nil)
            if fd >= 0 { Glibc.close(fd) }
        }
        evconnlistener_disable(listener)
        acceptPause.schedule(after: 0.01)
    }

    /// Closes the newest idle or header-incomplete connection, if there is one.
    func shedIdleConnection() -> Bool {
        guard let victim = connections.values.filter({ !$0.closed && $0.isIdle }).max(by: { $0.createdAt < $1.createdAt }) else {
            return false
        }
        shed += 1
        victim.close()
        return true
    }
}
