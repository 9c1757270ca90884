import CCurl
import EddyCore
import Glibc

/// The address half of the gate (`UpstreamGate`): where a URL's host may be a wildcard match,
/// the address it resolves to is checked before a socket is opened and again before the request
/// goes out, so DNS cannot lead a transfer to a loopback, private or link-local address.
extension UpstreamTransfer {
    func openSocket(_ addr: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        let family = addr.pointee.family
        // `curl_sockaddr.addr` is declared as a 16-byte `struct sockaddr`, but curl stores the whole
        // address there and gives its real length in `addrlen`: an IPv6 address (28 bytes) runs past
        // the declared field. Read by family and by `addrlen` from the field's address, never more.
        let length = Int(addr.pointee.addrlen)
        let base = UnsafeMutableRawPointer(addr) + MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr)!
        var internalAddress = true
        if family == AF_INET && length >= MemoryLayout<sockaddr_in>.size {
            let sin = base.loadUnaligned(as: sockaddr_in.self)
            internalAddress = AddressPolicy.isInternal(ipv4: withUnsafeBytes(of: sin.sin_addr) { Array($0) })
        } else if family == AF_INET6 && length >= MemoryLayout<sockaddr_in6>.size {
            let sin6 = base.loadUnaligned(as: sockaddr_in6.self)
            internalAddress = AddressPolicy.isInternal(ipv6: withUnsafeBytes(of: sin6.sin6_addr) { Array($0) })
        }
        if internalAddress {
            blockedAddress = true
            return eddy_CURL_SOCKET_BAD
        }
        return socket(family, addr.pointee.socktype, addr.pointee.protocol)
    }

    /// The address a request is about to go out to, in text: false (and the transfer ends as
    /// refused) when it is internal.
    func connectionAllowed(_ ip: String?) -> Bool {
        // Anything but a public address, including text that is not an address, is refused.
        let internalAddress = ip.flatMap { AddressPolicy.isInternal(address: $0) } ?? true
        if internalAddress { blockedAddress = true }
        return !internalAddress
    }
}
