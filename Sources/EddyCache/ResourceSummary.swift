/// One stored resource as the admin API lists it: no bytes, no file, nothing loaded into memory.
public struct ResourceSummary: Equatable, Sendable {
    public var key: String
    public var version: Int
    /// The origin's status (200, or a stored 404/410/...).
    public var status: Int
    public var length: Int?
    /// Confirmed bytes.
    public var bytes: Int
    public var pinned: Bool
    /// Unix seconds of the last use.
    public var lastAccess: Int
    public var contentType: String?

    public init(key: String, version: Int, status: Int, length: Int?, bytes: Int, pinned: Bool, lastAccess: Int, contentType: String?) {
        self.key = key
        self.version = version
        self.status = status
        self.length = length
        self.bytes = bytes
        self.pinned = pinned
        self.lastAccess = lastAccess
        self.contentType = contentType
    }
}

/// How `CacheStore.list` orders resources: by key ascending, or largest or most recently used first.
public enum ResourceOrder: String, Sendable, CaseIterable {
    case key, bytes
    case lastAccess = "last_access"
}
