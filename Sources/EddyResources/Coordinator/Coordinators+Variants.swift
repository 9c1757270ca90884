import EddyCache
import EddyCore

/// Responses that vary on request fields (RFC 9111 section 4.1). Each variant is a resource of
/// its own under `VaryKey.key`; the URL's own key holds a marker naming the fields (see
/// `ResourceMeta.varyMarker`), so that a request finds its variant with two lookups and no scan.
/// At most `maxVariants` variants of a URL are kept, the least recently used going first.
extension Coordinators {
    /// The key a request with `headers` reads for the URL key `base`, and what is stored there:
    /// the URL's own response, or the variant its marker selects (nil when none is stored).
    package func resolve(_ base: String, headers: HTTPHeaders, now: Int) -> (key: String, stored: CachedResource?) {
        guard let r = cache.lookup(base, now: now) else { return (base, nil) }
        guard let fields = r.meta.varyMarkerFields else { return (base, r) }
        guard !fields.isEmpty else { return (base, nil) } // a marker naming nothing: replaced at the next store
        let key = VaryKey.key(base, fields: fields, request: headers)
        return (key, cache.lookup(key, now: now))
    }

    /// The key a storable response to `fetch` is stored under, given its `Vary` (never `*`,
    /// which is not storable). For a varying response this writes the URL's marker (replacing a
    /// response stored there before the origin began to vary, or a marker for other fields) and
    /// retires the least recently used variants beyond `maxVariants`. A response that does not
    /// vary is stored under the URL's key, replacing any marker; variants left behind are never
    /// looked up again and leave with eviction.
    func storageKey(for fetch: FetchContext, responseHeaders: HTTPHeaders, now: Int) -> String {
        let base = fetch.base
        let fields = VaryKey.fields(responseHeaders.values("Vary")) ?? []
        guard !fields.isEmpty else { return base }
        if cache.lookup(base, now: now)?.meta.varyMarkerFields != fields {
            _ = cache.insert(key: base, meta: .varyMarker(fields: fields, storedAt: now), now: now)
        }
        let key = VaryKey.key(base, fields: fields, request: fetch.requestHeaders)
        let others = cache.variants(of: base).filter { $0.key != key }
        if others.count >= maxVariants {
            for v in others[Swift.max(0, maxVariants - 1)...] {
                // One in use is only marked stale (see `invalidate`) and goes at a later store.
                if let r = cache.lookup(v.key, now: v.lastAccess) { of(r).invalidate() }
                metrics.variantsRetired += 1
            }
        }
        return key
    }

    /// True when `headers`' Vary selects variants on other fields than the stored resource `r` was
    /// keyed by: the origin began or stopped varying, or varies on something else now.
    func varyChanged(_ r: CachedResource, _ headers: HTTPHeaders) -> Bool {
        guard let current = VaryKey.fields(headers.values("Vary")) else { return false } // `*`: not storable anyway
        return current != (VaryKey.fields(ofKey: r.key) ?? [])
    }

    /// Every stored response for the URL key `base`: its own, or each of its variants.
    package func storedResponses(for base: String, now: Int) -> [CachedResource] {
        guard let r = cache.lookup(base, now: now) else { return [] }
        guard r.meta.varyMarkerFields != nil else { return [r] }
        return cache.variants(of: base).compactMap { cache.lookup($0.key, now: $0.lastAccess) }
    }
}
