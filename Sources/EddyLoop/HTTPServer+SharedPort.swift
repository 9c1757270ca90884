import CLibevent
import Glibc

extension HTTPServer {
    /// A listener with SO_REUSEPORT on `host:port`, attached to `http` (what libevent's notes
    /// give for one evhttp per thread). nil with errno set when it cannot be bound. `claim`: fail
    /// with EADDRINUSE when any socket is listening there already (see `portIsFree`).
    static func bindShared(_ http: OpaquePointer, loop: EventLoop, host: String, port: Int, claim: Bool) -> OpaquePointer? {
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
        let flags = UInt32(LEV_OPT_REUSEABLE | LEV_OPT_REUSEABLE_PORT | LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC)
        guard let lev = evconnlistener_new_bind(loop.base, nil, nil, flags, -1, first.pointee.ai_addr,
                                                Int32(first.pointee.ai_addrlen)) else { return nil }
        guard let bound = evhttp_bind_listener(http, lev) else {
            evconnlistener_free(lev)
            return nil
        }
        return bound
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
        return bind(fd, address.ai_addr, address.ai_addrlen) == 0 || errno != EADDRINUSE
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
