import EddyCore

/// A request read by `WireConnection`, and the way to answer it.
public final class WireRequest {
    /// The request's head as parsed.
    public let head: RequestHead
    private let connection: WireConnection
    /// True once a response was handed to the connection.
    public private(set) var isFinished = false

    init(connection: WireConnection, head: RequestHead) {
        self.connection = connection
        self.head = head
    }

    /// Sends a complete response: `fields` as prepared text (each line CRLF-ended, see
    /// `HeaderBlock.wire`), then Content-Length and the connection's own fields, then
    /// `length` bytes of `bytes` from `offset`, by reference (none for HEAD).
    public func send(status: Int, fields: String, bytes: SharedBytes, offset: Int, length: Int) {
        guard !isFinished, offset >= 0, length >= 0, offset + length <= bytes.count else { return }
        isFinished = true
        var head = (head.minor == 1 ? "HTTP/1.1 " : "HTTP/1.0 ") + String(status) + " " + ReasonPhrase.of(status) + "\r\n"
        head += connection.server.dateField
        head += fields
        head += "Content-Length: " + String(length) + "\r\n"
        // RFC 9112 section 9.3: say when the connection ends, or (1.0) when it persists.
        if !self.head.keepAlive { head += "Connection: close\r\n" } else if self.head.minor == 0 { head += "Connection: keep-alive\r\n" }
        head += "\r\n"
        let sendsBody = self.head.method != "HEAD" && length > 0
        connection.send(head: head, body: sendsBody ? UnsafeRawPointer(bytes.base + offset) : nil,
                        count: sendsBody ? length : 0, owner: bytes)
    }
}
