/// Whether an upstream response's head frames its body in one unambiguous way (RFC 9112 section
/// 6.3), checked before anything of it reaches a client or the cache. Pure.
///
/// An origin that sends two different `Content-Length` values, or a `Content-Length` beside a
/// `Transfer-Encoding`, lets each hop choose a different end of the body; the bytes one hop reads
/// as the next response are then whatever the origin put there (response splitting). eddy
/// refuses such a head (a 502, nothing stored) rather than choose.
public enum ResponseFraming {
    /// Why `headers` can not be trusted to frame a body, or nil when they can.
    ///
    /// - Both `Transfer-Encoding` and `Content-Length`: section 6.3 item 3 says such a message
    ///   "ought to be handled as an error" (it may be an attempt at smuggling or splitting).
    /// - `Content-Length` values that differ, or one that is not a non-negative decimal: item 5
    ///   makes the framing invalid, and a proxy "MUST ... discard the received response, and send
    ///   a 502". Repeats of one value (`42, 42` or two `42` lines) are one length (RFC 9110
    ///   section 8.6 lets a recipient take them so).
    public static func problem(_ headers: HTTPHeaders) -> String? {
        let lengths = headers.values("Content-Length")
        if headers["Transfer-Encoding"] != nil && !lengths.isEmpty {
            return "both Content-Length and Transfer-Encoding"
        }
        var length: Int?
        for line in lengths {
            for member in line.split(separator: ",", omittingEmptySubsequences: false) {
                guard let n = RangeHeader.parseDigits(member.trimmingOWS()) else {
                    return "an invalid Content-Length '\(line)'"
                }
                if let length, length != n { return "conflicting Content-Length values" }
                length = n
            }
        }
        return nil
    }

    /// The one length the head declares (after `problem` found none), or nil.
    public static func length(_ headers: HTTPHeaders) -> Int? {
        guard let first = headers.values("Content-Length").first,
              let member = first.split(separator: ",").first else { return nil }
        return RangeHeader.parseDigits(member.trimmingOWS())
    }
}
