/// Why a fill for a resource's head is joined or started (see `Coordinators.join`): it decides
/// how a new discovery is set up, never whether one is shared.
package enum FillPurpose {
    /// A client's response; a HEAD's fill keeps the span it fetched (a cold HEAD stores its block).
    case playback(keepsSpan: Bool)
    /// A playlist's next segment, fetched whole before the player asks.
    case prefetch
    /// A download's unit.
    case download
}
