import EddyCache
import EddyCore
import EddyLoop
import EddyResources
import Foundation

/// The cache's admin API (issue 14; paths fixed, scripts rely on them):
/// `GET /api/resources?prefix=&sort=&limit=&cursor=` (pages), `GET /api/resources/{key}` (the range
/// map), `DELETE /api/resources/{key}` and `DELETE /api/resources?prefix=` (purge),
/// `POST /api/resources/{key}/pin` and `.../unpin`. `{key}` is the cache key percent-encoded (the
/// upstream URL), or an eddy URL or path, which is resolved like a request. A download's resource
/// (pinned) is not purged: unpin it, or delete the download.
package final class ResourcesAPI {
    /// Every resource's home: each resource is read and changed there (the API runs on the main loop).
    private let homes: ResourceHomes
    let routing: Routing
    /// The routes as they are now (a reload replaces them).
    var resolver: TargetResolver { routing.resolver }
    private let selfAuthority: SelfAuthority

    package init(homes: ResourceHomes, routing: Routing, selfAuthority: SelfAuthority) {
        self.homes = homes
        self.routing = routing
        self.selfAuthority = selfAuthority
    }

    /// What an operation on one resource came to, on its home.
    private enum Answer {
        case info(ResourceInfo)
        case purged(Int)
        case error(Int, String)
    }

    /// Answers requests under /api/resources; false for other paths.
    package func handle(_ request: ServerRequest) -> Bool {
        let (path, query) = DownloadAPI.split(request.uri)
        let root = "/api/resources"
        guard path == root || path.hasPrefix(root + "/") else { return false }
        let method = request.method == "HEAD" ? "GET" : request.method
        guard path != root else {
            switch method {
            case "GET": list(request, query)
            case "DELETE": purge(request, prefix: query["prefix"])
            default: AdminJSON.methodNotAllowed(request, allow: ["GET", "DELETE"])
            }
            return true
        }
        var rest = String(path.dropFirst(root.count + 1))
        var action = ""
        for a in ["/pin", "/unpin"] where rest.hasSuffix(a) {
            action = String(a.dropFirst())
            rest = String(rest.dropLast(a.count))
        }
        let key = rest.removingPercentEncoding ?? rest
        switch (method, action) {
        case ("GET", ""), ("DELETE", ""), ("POST", "pin"), ("POST", "unpin"): break
        default:
            AdminJSON.methodNotAllowed(request, allow: action.isEmpty ? ["GET", "DELETE"] : ["POST"])
            return true
        }
        act(on: candidates(key)[...], method: method, action: action) { answer in
            switch answer ?? .error(404, "no resource \(key)") {
            case let .info(info): AdminJSON.send(request, 200, info)
            case let .purged(n): AdminJSON.send(request, 200, ["purged": n])
            case let .error(status, message): AdminJSON.error(request, status, message)
            }
        }
        return true
    }

    /// Performs `method`/`action` on the first of `keys` that is stored, on its home, one home
    /// after the other; `done` gets nil when none is.
    private func act(on keys: ArraySlice<String>, method: String, action: String, done: @escaping (Answer?) -> Void) {
        guard let key = keys.first else { return done(nil) }
        homes.ask(onHomeOf: key, { h -> Answer? in
                guard let r = h.store.peek(key) else { return nil }
                switch (method, action) {
                case ("DELETE", _):
                    guard !r.pinned else { return .error(409, "\(r.key) is pinned (a download or a pin holds it): unpin it first") }
                    return .purged(ResourcesAPI.remove(r, on: h))
                case ("POST", _):
                    h.store.setPinned(r, action == "pin")
                    if action == "unpin" { h.store.enforceLimit() } // it may be over the budget now
                    return .info(ResourceInfo(r))
                default: return .info(ResourceInfo(r))
                }
            }, then: { [self] answer in
                if let answer { return done(answer) }
                act(on: keys.dropFirst(), method: method, action: action, done: done)
            })
    }

    private func list(_ request: ServerRequest, _ query: [String: String]) {
        guard let order = ResourceOrder(rawValue: query["sort"] ?? "key") else {
            return AdminJSON.error(request, 400, "sort: one of key, bytes, last_access")
        }
        var limit = 100
        if let l = query["limit"] {
            guard let n = Int(l), (1...1000).contains(n) else { return AdminJSON.error(request, 400, "limit: a number from 1 to 1000") }
            limit = n
        }
        let (prefix, cursor) = (query["prefix"] ?? "", query["cursor"])
        // The index, with what each stripe holds in memory (newer, or not committed) laid over it.
        homes.askAll({ $0.store.residents(prefix: prefix) }, then: { [homes] residents in
            let page = homes.all[0].store.page(prefix: prefix, order: order, cursor: cursor, limit: limit, residents: residents)
            AdminJSON.send(request, 200, ResourcePage(resources: page.items.map(ResourceInfo.init), nextCursor: page.next))
        })
    }

    /// Purges every unpinned resource whose key starts with `prefix`, each on its home.
    private func purge(_ request: ServerRequest, prefix: String?) {
        guard let prefix else { return AdminJSON.error(request, 400, "prefix: required (an empty prefix purges everything unpinned)") }
        homes.askAll({ h in
            var purged = 0, pinned = 0
            for k in h.store.keys(prefix: prefix) where h.store.stripe(of: k) == h.store.stripe {
                guard let r = h.store.peek(k) else { continue }
                if r.pinned { pinned += 1 } else { purged += ResourcesAPI.remove(r, on: h) }
            }
            return (purged, pinned)
        }, then: { counts in
            AdminJSON.send(request, 200, ["purged": counts.map(\.0).reduce(0, +), "pinned_kept": counts.map(\.1).reduce(0, +)])
        })
    }

    /// Removes `r` and the variants stored under its URL; responses reading it finish from its
    /// open, unlinked file (see `ResourceCoordinator.drop`). On its home.
    private static func remove(_ r: CachedResource, on h: ResourceHome) -> Int {
        let variants = h.coordinators.storedResponses(for: r.key, now: h.loop.wallClock()).filter { $0 !== r && !$0.pinned }
        for v in variants + [r] { h.coordinators.of(v).drop() }
        return variants.count + 1
    }

    /// The keys `text` may name, in order: a cache key, or an eddy URL or path resolved like a
    /// request.
    private func candidates(_ text: String) -> [String] {
        var out = [text]
        var t = text
        let resolver = self.resolver
        if let u = UpstreamURL.parse(Substring(t)) {
            // An upstream URL with parameters a `cache_key` rule leaves out is stored without them.
            if resolver.cacheKey(u) != text { out.append(resolver.cacheKey(u)) }
            if selfAuthority.names(u) { t = u.pathAndQuery }
        }
        if t.hasPrefix("/"), case let .upstream(url, _, _) = resolver.resolve(t) { out.append(resolver.cacheKey(url)) }
        return out
    }
}

/// One page of `GET /api/resources`.
package struct ResourcePage: Encodable {
    var resources: [ResourceInfo]
    var nextCursor: String?

    enum CodingKeys: String, CodingKey {
        case resources
        case nextCursor = "next_cursor"
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(resources, forKey: .resources)
        try c.encode(nextCursor, forKey: .nextCursor)
    }
}
