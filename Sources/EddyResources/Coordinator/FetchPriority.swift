/// How urgently a ticket's bytes are wanted. A response a player waits on outranks a download job,
/// which outranks a prefetch: only tickets above `.prefetch` keep a full cache from pausing fills
/// (see `ResourceStateMachine.shouldThrottle`) and keep a fill from being stopped as unwanted.
package enum FetchPriority: Int, Comparable, Sendable {
    /// Segments a player is expected to ask for next (HLS prefetch).
    case prefetch = 0
    /// An offline download job: every byte must land, nobody watches it live.
    case download = 1
    /// A response a client is waiting on.
    case playback = 2

    package static func < (a: FetchPriority, b: FetchPriority) -> Bool { a.rawValue < b.rawValue }
}
