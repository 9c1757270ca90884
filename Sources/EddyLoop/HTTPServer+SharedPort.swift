import CLibevent
import Glibc

extension HTTPServer {
    /// A listener on `host:port` whose connections go to the server at `arg`; with `reusePort`,
    /// SO_REUSEPORT, so that every loop's listener shares the port (what libevent's notes give
    /// for one listener per thread). nil with errno set when it cannot be bound. `claim`: fail
    /// with EADDRINUSE when any socket is listening there already (see `portIsFree`).
    static func bind(loop: EventLoop, host: String, port: Int, reusePort: Bool, claim: Bool, arg: UnsafeMutableRawPointer) -> OpaquePointer? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            errno = EADDRNOTAVAIL
            return nil
        }
        defer { freeaddrinfo(list) }
        if claim && port != 0 && !portIsFree(first.pointee) {
            errno = EADDRINUSE
            return nil
        }
        var flags = LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC
        if reusePort { flags |= LEV_OPT_REUSEABLE_PORT }
        return evconnlistener_new_bind(loop.base, { _, fd, address, _, arg in
            Unmanaged<HTTPServer>.fromOpaque(arg!).takeUnretainedValue().accepted(fd, address)
        }, arg, UInt32(flags), -1, first.pointee.ai_addr, Int32(first.pointee.ai_addrlen))
    }

    /// A peer's address as text, without its port.
    static func describe(_ address: UnsafeMutablePointer<sockaddr>?) -> String {
        guard let address else { return "-" }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            var a = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            inet_ntop(AF_INET, &a, &text, socklen_t(text.count))
        case AF_INET6:
            var a = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            inet_ntop(AF_INET6, &a, &text, socklen_t(text.count))
        default:
            return "-"
        }
        return String(cString: text)
    }

    /// Whether a socket without SO_REUSEPORT can bind `address`: the kernel refuses while any
    /// socket listens on it, whatever that socket's options. SO_REUSEADDR as evhttp sets it, so
    /// that connections of an earlier run in TIME_WAIT do not count.
    static func portIsFree(_ address: addrinfo) -> Bool {
        let fd = socket(address.ai_family, address.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), address.ai_protocol)
        guard fd >= 0 else { return true } // the real bind reports what is wrong
        defer { close(fd) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        return Glibc.bind(fd, address.ai_addr, address.ai_addrlen) == 0 || errno != EADDRINUSE
    }

    /// The local port of a bound socket.
    static func localPort(_ fd: Int32) -> Int? {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) == 0 }
        }
        guard ok else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) } }
        case AF_INET6:
            return withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) } }
        default:
            return nil
        }
    }
}
