import Glibc

/// systemd's readiness protocol (sd_notify(3)) in a few lines, without libsystemd: one datagram
/// to the AF_UNIX socket named by NOTIFY_SOCKET (a path, or `@name` in the abstract namespace).
/// Without NOTIFY_SOCKET (not run by systemd with Type=notify) it does nothing.
enum SystemdNotifier {
    /// Sends `state` (`READY=1`, `STOPPING=1`, `RELOADING=1`, `STATUS=...`); false when it could not.
    @discardableResult
    static func notify(_ state: String) -> Bool {
        guard let env = getenv("NOTIFY_SOCKET") else { return false }
        var path = Array(String(cString: env).utf8)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: addr.sun_path)
        guard !path.isEmpty, path.count < capacity, path[0] == UInt8(ascii: "/") || path[0] == UInt8(ascii: "@") else { return false }
        if path[0] == UInt8(ascii: "@") { path[0] = 0 } // the abstract namespace
        withUnsafeMutableBytes(of: &addr.sun_path) { p in
            for (i, b) in path.enumerated() { p[i] = b }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
        let bytes = Array(state.utf8)
        let sent = withUnsafePointer(to: &addr) { a in
            a.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL), $0, length) }
        }
        return sent == bytes.count
    }
}
