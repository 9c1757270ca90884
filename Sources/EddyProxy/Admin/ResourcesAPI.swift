import EddyCache
import EddyCore
import EddyLoop
import Foundation

/// The cache's admin API (issue 14; paths fixed, scripts rely on them):
/// `GET /api/resources?prefix=&sort=&limit=&cursor=` (pages), `GET /api/resources/{key}` (the range
/// map), `DELETE /api/resources/{key}` and `DELETE /api/resources?prefix=` (purge),
/// `POST /api/resources/{key}/pin` and `.../unpin`. `{key}` is the cache key percent-encoded (the
/// upstream URL), or an eddy URL or path, which is resolved like a request. A download's resource
/// (pinned) is not purged: unpin it, or delete the download.
final class ResourcesAPI {
    private let store: CacheStore
    private let coordinators: Coordinators
    let routing: Routing
    /// The routes as they are now (a reload replaces them).
    var resolver: TargetResolver { routing.resolver }
    private let selfAuthority: SelfAuthority

    init(store: CacheStore, coordinators: Coordinators, routing: Routing, selfAuthority: SelfAuthority) {
        self.store = store
        self.coordinators = coordinators
        self.routing = routing
        self.selfAuthority = selfAuthority
    }

    /// Answers requests under /api/resources; false for other paths.
    func handle(_ request: ServerRequest) -> Bool {
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
        guard let r = find(key) else {
            AdminJSON.error(request, 404, "no resource \(key)")
            return true
        }
        switch (method, action) {
        case ("GET", ""): AdminJSON.send(request, 200, ResourceInfo(r))
        case ("DELETE", ""):
            guard !r.pinned else {
                AdminJSON.error(request, 409, "\(r.key) is pinned (a download or a pin holds it): unpin it first")
                return true
            }
            AdminJSON.send(request, 200, ["purged": remove(r)])
        case ("POST", "pin"), ("POST", "unpin"):
            store.setPinned(r, action == "pin")
            if action == "unpin" { store.enforceLimit() } // it may be over the budget now
            AdminJSON.send(request, 200, ResourceInfo(r))
        default: AdminJSON.methodNotAllowed(request, allow: action.isEmpty ? ["GET", "DELETE"] : ["POST"])
        }
        return true
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
        let page = store.list(prefix: query["prefix"] ?? "", order: order, cursor: query["cursor"], limit: limit)
        AdminJSON.send(request, 200, ResourcePage(resources: page.items.map(ResourceInfo.init), nextCursor: page.next))
    }

    /// Purges every unpinned resource whose key starts with `prefix`.
    private func purge(_ request: ServerRequest, prefix: String?) {
        guard let prefix else { return AdminJSON.error(request, 400, "prefix: required (an empty prefix purges everything unpinned)") }
        var purged = 0, pinned = 0
        for k in store.keys(prefix: prefix) {
            guard let r = store.peek(k) else { continue }
            if r.pinned { pinned += 1 } else { purged += remove(r) }
        }
        AdminJSON.send(request, 200, ["purged": purged, "pinned_kept": pinned])
    }

    /// Removes `r` and the variants stored under its URL; responses reading it end cleanly (the
    /// coordinator's drop wakes them; an open file stays readable until they close it).
    private func remove(_ r: CachedResource) -> Int {
        let variants = coordinators.storedResponses(for: r.key, now: coordinators.loop.wallClock()).filter { $0 !== r && !$0.pinned }
        for v in variants + [r] { coordinators.of(v).drop() }
        return variants.count + 1
    }

    /// The resource under `text`: a cache key, or an eddy URL or path resolved like a request.
    private func find(_ text: String) -> CachedResource? {
        if let r = store.peek(text) { return r }
        var t = text
        if let u = UpstreamURL.parse(Substring(t)), selfAuthority.names(u) { t = u.pathAndQuery }
        guard t.hasPrefix("/"), case let .upstream(url, _, _) = resolver.resolve(t) else { return nil }
        return store.peek(url.description)
    }
}

/// One page of `GET /api/resources`.
struct ResourcePage: Encodable {
    var resources: [ResourceInfo]
    var nextCursor: String?

    enum CodingKeys: String, CodingKey {
        case resources
        case nextCursor = "next_cursor"
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(resources, forKey: .resources)
        try c.encode(nextCursor, forKey: .nextCursor)
    }
}
