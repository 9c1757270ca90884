/// The directives of a `Cache-Control` response header that a shared cache acts on (RFC 9111 section 5.2.2).
public struct CacheControl: Equatable, Sendable {
    public var noStore = false
    public var noCache = false
    public var isPrivate = false
    public var isPublic = false
    public var mustRevalidate = false
    public var proxyRevalidate = false
    public var maxAge: Int?
    public var sMaxAge: Int?
    /// RFC 5861 section 3.
    public var staleWhileRevalidate: Int?
    /// RFC 5861 section 4.
    public var staleIfError: Int?

    public init() {}

    /// Parses a header value (several headers joined with commas are fine). Unknown directives are
    /// ignored as RFC 9111 section 5.2.3 requires; a malformed max-age is treated as 0 (stale), the
    /// safe reading of RFC 9111 section 4.2.1.
    public static func parse(_ value: String?) -> CacheControl {
        var cc = CacheControl()
        guard let value else { return cc }
        for raw in value.split(separator: ",") {
            let item = raw.trimmingOWS()
            let name: Substring, arg: Substring?
            if let eq = item.firstIndex(of: "=") {
                name = item[..<eq].trimmingOWS()
                var a = item[item.index(after: eq)...].trimmingOWS()
                if a.hasPrefix("\"") && a.hasSuffix("\"") && a.count >= 2 { a = a.dropFirst().dropLast() }
                arg = a
            } else {
                name = item
                arg = nil
            }
            func seconds() -> Int { arg.flatMap { RangeHeader.parseDigits($0) } ?? 0 }
            switch name.lowercased() {
            case "no-store": cc.noStore = true
            // no-cache="field" only restricts those fields; unqualified it forbids serving without revalidation.
            case "no-cache": if arg == nil { cc.noCache = true }
            // private="field" forbids a shared cache to store those fields (section 5.2.2.7); eddy
            // does not strip single fields, so the qualified form is treated as the unqualified one.
            case "private": cc.isPrivate = true
            case "public": cc.isPublic = true
            case "must-revalidate": cc.mustRevalidate = true
            case "proxy-revalidate": cc.proxyRevalidate = true
            case "max-age": cc.maxAge = seconds()
            case "s-maxage": cc.sMaxAge = seconds()
            case "stale-while-revalidate": cc.staleWhileRevalidate = seconds()
            case "stale-if-error": cc.staleIfError = seconds()
            default: break
            }
        }
        return cc
    }

    /// The directives eddy obeys for a response: those of the first valid targeted field present
    /// (RFC 9213 section 2.2: a cache that recognises a targeted field ignores Cache-Control),
    /// else Cache-Control. Targeted fields are Dictionary structured fields, parsed strictly; an
    /// invalid one is ignored as if absent (`TargetedCacheControl`).
    public static func effective(_ headers: HTTPHeaders, targeted: [String]) -> CacheControl {
        for name in targeted {
            if let v = headers.combined(name), let cc = TargetedCacheControl.parse(v) { return cc }
        }
        return parse(headers.combined("Cache-Control"))
    }

    /// True when a shared cache must not store the response (RFC 9111 section 3).
    public var forbidsSharedStorage: Bool { noStore || isPrivate }
}
