import EddyCache

/// A new version fetched beside the stored one (a file download's refresh): it is kept under a
/// key of its own on the same home until whole, then takes its URL's place in one step, so the
/// old version is served, whole and pinned, until then.
extension Coordinators {
    /// The key a new version of `key` is staged under. The stripe hash stops at U+0001 (as for
    /// `VaryKey`), so it lives on `key`'s home, and no request-target can name it.
    package static func stagingKey(_ key: String) -> String { key + "\u{1}staged\u{1}" }

    /// Makes the version staged for `key` the one `key` serves: the old one is dropped as a purge
    /// drops it (responses reading it finish it from its open, unlinked file), and the staged
    /// one takes its key, pins and all. False, changing nothing, while the staged version is not
    /// whole or is in use, or a discovery of `key` is in flight: the caller tries again later.
    package func promoteStaged(_ key: String) -> Bool {
        let staged = Coordinators.stagingKey(key)
        guard let s = cache.lookup(staged, now: loop.wallClock()), s.isComplete, discovering[key] == nil, discovering[staged] == nil else {
            return false
        }
        if s.attachment != nil {
            guard !of(s).isInUse else { return false }
            s.attachment = nil // its coordinator was the staging key's; the next use makes a new one
        }
        if let old = store.peek(key) {
            // Unpinned first: its loss is the refresh's doing, not one for a download to repair.
            store.setPinned(old, false)
            of(old).drop()
        }
        store.rekey(s, to: key)
        return true
    }
}
