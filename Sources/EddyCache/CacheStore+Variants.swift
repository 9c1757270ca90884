import EddyCore

/// The variants of a URL whose responses carry `Vary` (RFC 9111 section 4.1): resources whose
/// keys start with `VaryKey.prefix(base)`, found by one range scan of the index's key column.
extension CacheStore {
    public func variants(of base: String) -> [(key: String, lastAccess: Int)] {
        guard isAvailable else { return [] }
        let low = VaryKey.prefix(base), high = VaryKey.prefixEnd(base)
        var byKey: [String: Int] = [:]
        do {
            for row in try index.keys(between: low, and: high) where !writer.isDeletePending(id: row.id) {
                byKey[row.key] = row.lastAccess
            }
        } catch {
            logger.error("index variant scan failed", metadata: ["key": "\(base)", "error": "\(error)"])
        }
        // Resources inserted since the last commit are only in memory; the scan of the resident
        // table is bounded by `residentResources` and runs only when a variant is stored or
        // invalidated.
        for (k, r) in resources where k.hasPrefix(low) { byKey[k] = r.lastAccess }
        return byKey.map { (key: $0.key, lastAccess: $0.value) }.sorted { $0.lastAccess > $1.lastAccess || ($0.lastAccess == $1.lastAccess && $0.key < $1.key) }
    }
}
