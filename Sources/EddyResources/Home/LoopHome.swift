import EddyLoop

/// One loop's part of the proxy, as `LoopHomes` reaches it from the other loops: its position
/// among the homes, its mailbox, and whether the caller is on its thread.
package protocol LoopHome: AnyObject {
    /// Its position among the homes (and its cache stripe's).
    var index: Int { get }
    /// Reaches its loop from the others.
    var mailbox: LoopMailbox { get }
    /// True on its loop's thread.
    var isCurrent: Bool { get }
}
