/// Limits applied to client connections (evhttp's defaults are unlimited, see the notes on libevent).
public struct HTTPServerLimits: Sendable {
    /// Largest request header block, bytes.
    public var maxHeaderBytes: Int = 16 << 10
    /// Largest request body, bytes; larger ones get 413.
    public var maxBodyBytes: Int = 64 << 20
    /// Bodies larger than this are handed on as they arrive (`RequestBodyStream`), with
    /// back-pressure, instead of read whole first; nil reads every body whole (the admin
    /// listener, whose handlers parse JSON).
    public var streamBodiesAbove: Int? = 64 << 10
    /// Longest request-target, bytes; longer ones get 414.
    public var maxURILength: Int = 8 << 10
    /// Connections with a request in progress; more get 503.
    public var maxConnections: Int = 4096
    /// Seconds a connection may sit idle (no read or write progress) before it is closed.
    public var idleTimeout: Int = 60
    /// Seconds from the first byte of a request to the end of its headers; bytes arriving do not
    /// extend it, so a client trickling a header (slowloris) is closed after this long.
    public var headerTimeout: Int = 10

    public init() {}

    /// The largest admin body: a list of 1,000 download specs with room to spare.
    public static let adminListBytes = 8 << 20

    /// The same limits for the admin listener: its handlers parse whole JSON bodies, none of
    /// them larger than `adminListBytes` (a 64 MiB body read whole by each of a few connections
    /// would take hundreds of MiB before a handler saw it).
    public var admin: HTTPServerLimits {
        var l = self
        l.streamBodiesAbove = nil
        l.maxBodyBytes = min(l.maxBodyBytes, HTTPServerLimits.adminListBytes)
        return l
    }
}
