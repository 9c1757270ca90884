/// The life of a fill session.
package enum FillState: Equatable {
    /// Request sent, no response head yet.
    case awaitingHead
    /// A verified head arrived; body bytes are being written at `cursor`.
    case streaming
    /// The requested span was written completely.
    case finished
    /// Ended early, with the reason.
    case failed(String)

    package var isActive: Bool { self == .awaitingHead || self == .streaming }
}
