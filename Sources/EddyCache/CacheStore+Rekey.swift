/// Moving a resource to another key: a new version fetched beside the one in use (a file
/// download's refresh, staged under a key of its own) takes its URL's place in one step, so the
/// old version stays whole until the new one is.
extension CacheStore {
    /// Stores `r` under `key` instead of its own key, removing whatever `key` held (its file is
    /// unlinked after the index stops naming it; open descriptors keep reading it). Both keys
    /// must be of this stripe. The index row keeps its id and data file: nothing is copied.
    public func rekey(_ r: CachedResource, to key: String) {
        precondition(stripe(of: key) == stripe && stripe(of: r.key) == stripe, "rekey across stripes")
        guard r.key != key else { return }
        if let old = peek(key), old !== r { remove(old) }
        resources[r.key] = nil
        r.key = key
        resources[key] = r
        r.dirty = true
        // Committed now, not at the next flush: until then the index would still name the row
        // under its old key (a lookup there would bring it back as a second resource of the same
        // file), and a new row under the old key committed in the same batch as the move could
        // break the key's uniqueness. A move is rare (a refresh's end): one synchronous commit.
        flush(wait: true)
    }
}
