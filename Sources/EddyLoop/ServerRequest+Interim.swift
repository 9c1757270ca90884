import CLibevent
import EddyCore
import Glibc

extension ServerRequest {
    /// Writes an interim head (`InterimHead`) to the client before the final response. evhttp
    /// keeps its output disabled until the reply starts, so the head is written to the socket
    /// directly when nothing is queued ahead of it (the hint is useful only early); what the
    /// socket does not take waits in the output buffer and leaves ahead of the final head.
    public func sendInterim(status: Int, headers: HTTPHeaders) {
        guard !headSent, !isGone, !isFinished,
              let bytes = InterimHead.encode(status: status, headers: headers, clientMajor: versionMajor, clientMinor: versionMinor),
              let conn = evhttp_request_get_connection(raw), let bev = evhttp_connection_get_bufferevent(conn),
              let out = bufferevent_get_output(bev) else { return }
        var sent = 0
        if evbuffer_get_length(out) == 0 {
            let fd = bufferevent_getfd(bev)
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
            if n > 0 { sent = n }
        }
        if sent < bytes.count {
            _ = bytes.withUnsafeBytes { evbuffer_add(out, $0.baseAddress! + sent, $0.count - sent) }
        }
    }
}
