import CLibevent
import Glibc

/// One client connection that has sent bytes, until evhttp frees it. evhttp shows eddy a
/// connection only once a whole request has arrived, so eddy watches each connection's input
/// buffer from its creation (`evhttp_set_bevcb`) and adopts it on its first bytes; evhttp's close
/// callback ends the record. That is what bounds header time and lets idle connections be shed
/// when descriptors run out. No reference to the bufferevent is held: with libevent's epoll
/// changelist, a bufferevent outliving evhttp's close of its socket left stale registrations
/// behind (new connections on the reused descriptor then went unanswered).
final class ClientConnection {
    /// The connection's bufferevent and evhttp connection; valid until `connectionFreed`.
    let bev: OpaquePointer
    let evcon: OpaquePointer
    /// Monotonic time of the first bytes; the newest idle connection is shed first.
    let createdAt: Double
    /// When bytes of a request that has not been handed to eddy yet first arrived; nil while
    /// idle or while a request is being answered.
    var headerStartedAt: Double?
    /// A request on this connection has been handed to eddy and not answered completely yet.
    var busy = false
    /// Set once eddy has shut the socket down (header timeout or shedding).
    var closing = false
    /// Requests received on this connection.
    var requests = 0
    /// The method and target of the request now arriving, when evhttp does not know the method
    /// (see `HTTPServer+ExtensionMethods`).
    var extensionLine: (method: String, target: String)?
    /// An extension-method request waiting for its body: the request, the bytes still to come,
    /// and since when it waits.
    var pendingBody: (request: ServerRequest, remaining: Int, since: Double)?
    /// The read event of such a body's bytes (`acceptExtension`).
    var bodyEvent: OpaquePointer?

    init(bev: OpaquePointer, evcon: OpaquePointer, createdAt: Double) {
        self.bev = bev
        self.evcon = evcon
        self.createdAt = createdAt
        headerStartedAt = createdAt
    }

    /// True when nothing is being answered or sent: closing it loses no response.
    var isIdle: Bool {
        !busy && evbuffer_get_length(bufferevent_get_output(bev)) == 0
    }

    /// Shuts the socket down; evhttp sees the end of the stream and frees the connection, closing
    /// the descriptor, on its next read.
    func close() {
        guard !closing else { return }
        closing = true
        let fd = bufferevent_getfd(bev)
        if fd >= 0 { shutdown(fd, Int32(SHUT_RDWR)) }
    }
}
