import EddyCore
import Foundation

/// Listing and inspecting the cache for the admin API (`GET /api/resources`, `eddy cache ls`):
/// pages of committed rows read with keyset pagination (a cursor names the last row shown, so a
/// page costs the same wherever it is), merged with the resources in memory (newer, or not yet
/// committed), without waiting for a commit: a listing never stalls the loop on fsync.
extension CacheStore {
    /// One page of resources whose key starts with `prefix`, in `order`, after `cursor` (from a
    /// previous page; nil for the first); returns the page and the cursor of the next, if any.
    public func list(prefix: String, order: ResourceOrder, cursor: String?, limit: Int) -> (items: [ResourceSummary], next: String?) {
        page(prefix: prefix, order: order, cursor: cursor, limit: limit, residents: [residents(prefix: prefix)])
    }

    /// What a stripe adds to a listing from memory: its resources whose key starts with `prefix`
    /// (newer than their index rows, or not committed yet), and the rows it removed and has not
    /// committed yet. On its loop.
    public func residents(prefix: String) -> (items: [ResourceSummary], removed: [Int]) {
        (resources.merging(leaving) { a, _ in a }.filter { $0.key.hasPrefix(prefix) && $0.value.meta.status != 0 }
            .map { CacheStore.summary($0.value) },
         writer.pendingDeleteIDs)
    }

    /// One page of the index merged with what every stripe holds in memory (`residents` of each;
    /// a stripe's own for an unstriped store), and the cursor of the next.
    public func page(prefix: String, order: ResourceOrder, cursor: String?, limit: Int,
                     residents: [(items: [ResourceSummary], removed: [Int])]) -> (items: [ResourceSummary], next: String?) {
        guard isAvailable else { return ([], nil) }
        let limit = max(1, min(limit, 1000))
        let after = cursor.flatMap(CacheStore.decodeCursor)
        let removed = Set(residents.flatMap(\.removed))
        var byKey: [String: ResourceSummary] = [:]
        do {
            for row in try index.list(prefix: prefix, order: order, after: after, limit: limit + 1)
            where !removed.contains(row.id) { byKey[row.summary.key] = row.summary }
        } catch {
            logger.error("index listing failed", metadata: ["error": "\(error)"])
            return ([], nil)
        }
        for s in residents.flatMap(\.items) where byKey[s.key] != nil || CacheStore.comes(s, after: after, in: order) {
            byKey[s.key] = s
        }
        var rows = byKey.values.sorted { CacheStore.precedes($0, $1, in: order) }
        let more = rows.count > limit
        if more { rows = Array(rows.prefix(limit)) }
        let next = more ? rows.last.map { CacheStore.encodeCursor(order: order, row: $0) } : nil
        return (rows, next)
    }

    /// The resource under `key` without marking it used (an operator looking is not a use).
    public func peek(_ key: String) -> CachedResource? {
        guard isAvailable else { return nil }
        if let r = resources[key] { return r }
        if let r = leaving[key] { return lookup(key, now: r.lastAccess) } // takes it back, file reopened
        guard let row = try? index.lookup(key), !writer.isDeletePending(id: row.id) else { return nil }
        return lookup(key, now: row.lastAccess)
    }

    /// Keys under `prefix`, committed or only in memory (a purge by prefix).
    public func keys(prefix: String) -> [String] {
        var keys = Set(resources.keys.filter { $0.hasPrefix(prefix) } + leaving.keys.filter { $0.hasPrefix(prefix) })
        var cursor: String?
        repeat {
            let page = list(prefix: prefix, order: .key, cursor: cursor, limit: 1000)
            keys.formUnion(page.items.map(\.key))
            cursor = page.next
        } while cursor != nil
        return keys.sorted()
    }

    /// The listing's total order: by key, or by the value (descending) then the key.
    static func precedes(_ a: ResourceSummary, _ b: ResourceSummary, in order: ResourceOrder) -> Bool {
        let (va, vb) = (value(a, order), value(b, order))
        return va != vb ? va > vb : a.key < b.key
    }

    /// True when `s` belongs after the cursor's row (everything does without a cursor).
    static func comes(_ s: ResourceSummary, after: (value: Int, key: String)?, in order: ResourceOrder) -> Bool {
        guard let after else { return true }
        let v = value(s, order)
        return v != after.value ? v < after.value : s.key > after.key
    }

    private static func value(_ s: ResourceSummary, _ order: ResourceOrder) -> Int {
        switch order {
        case .key: 0
        case .bytes: s.bytes
        case .lastAccess: s.lastAccess
        }
    }

    /// What a listing shows of `r`.
    public static func summary(_ r: CachedResource) -> ResourceSummary {
        ResourceSummary(key: r.key, version: r.version, status: r.meta.status, length: r.meta.length, bytes: r.confirmed.count,
                        pinned: r.pinned, lastAccess: r.lastAccess, contentType: r.meta.contentType)
    }

    /// A cursor is opaque to clients: base64url of the sort value and the key of the last row.
    static func encodeCursor(order: ResourceOrder, row: ResourceSummary) -> String {
        Data("\(value(row, order))\n\(row.key)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }

    static func decodeCursor(_ text: String) -> (value: Int, key: String)? {
        var b = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while b.count % 4 != 0 { b += "=" }
        guard b.utf8.count <= 16 << 10, let d = Data(base64Encoded: b), let s = String(data: d, encoding: .utf8),
              let nl = s.firstIndex(of: "\n"), let v = Int(s[..<nl]) else { return nil }
        return (v, String(s[s.index(after: nl)...]))
    }
}

extension CacheStore {
    /// The resources in memory (in use or used lately), most recently used first: the dashboard's
    /// busiest resources, without reading the index.
    public func recentlyUsed(limit: Int) -> [CachedResource] {
        Array(resources.values.filter { $0.meta.status != 0 }.sorted { ($0.lastAccess, $0.key) > ($1.lastAccess, $1.key) }.prefix(limit))
    }
}
