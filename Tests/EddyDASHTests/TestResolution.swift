import Foundation

/// URL resolution as the proxy does it, enough for these tests: absolute URLs as they are,
/// paths from the origin's root, relative ones against the base's directory.
enum TestResolution {
    static func resolve(_ ref: String, _ base: String) -> String? {
        if ref.contains("://") { return ref }
        let origin = base.components(separatedBy: "/").prefix(3).joined(separator: "/")
        if ref.hasPrefix("/") { return origin + ref }
        return String(base[..<(base.lastIndex(of: "/").map { base.index(after: $0) } ?? base.endIndex)]) + ref
    }
}
