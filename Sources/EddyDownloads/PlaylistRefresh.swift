/// When a download asks the origin again for a playlist the cache holds whole.
package enum PlaylistRefresh {
    /// Never: the stored copy is what is wanted (a plan rebuilt after a restart, perhaps offline).
    case never
    /// When it is a live playlist older than half its target duration (the rule players get).
    case staleLive
    /// Always, with a conditional request: a recording's reload.
    case always
}
