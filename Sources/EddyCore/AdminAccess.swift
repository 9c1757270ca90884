/// Who may use the admin listener (issue 14): loopback by default; any other address only with a
/// bearer token (RFC 6750 section 2.1), compared in constant time so that response timing does
/// not reveal how much of a guess was right.
public enum AdminAccess {
    /// True for addresses only this machine can reach: 127.0.0.0/8, ::1 and `localhost`.
    public static func isLoopback(host: String) -> Bool {
        let h = host.lowercased()
        if h == "localhost" || h == "::1" || h == "[::1]" { return true }
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { p in UInt8(p) != nil }
    }

    /// True when `authorization` (the request's field) is `Bearer <token>`. The scheme is
    /// case-insensitive (RFC 9110 section 11.1); the token is compared byte for byte, every byte
    /// looked at whatever the first difference.
    public static func allows(authorization: String?, token: String) -> Bool {
        guard let a = authorization?.trimmingOWS(), a.count > 7, a.prefix(7).lowercased() == "bearer " else { return false }
        let given = Array(a.dropFirst(7).trimmingOWS().utf8), wanted = Array(token.utf8)
        var diff = UInt8(given.count == wanted.count ? 0 : 1)
        for i in 0..<wanted.count { diff |= wanted[i] ^ (i < given.count ? given[i] : 0) }
        return diff == 0 && !wanted.isEmpty
    }
}
