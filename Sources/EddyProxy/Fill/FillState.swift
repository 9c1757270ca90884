/// The life of a fill session.
enum FillState: Equatable {
    /// Request sent, no response head yet.
    case awaitingHead
    /// A verified head arrived; body bytes are being written at `cursor`.
    case streaming
    /// The requested span was written completely.
    case finished
    /// Ended early, with the reason.
    case failed(String)

    var isActive: Bool { self == .awaitingHead || self == .streaming }
}
